import Contracts
import EventSourcing
import Foundation
import GRDB
import GRDBSQLite
import Messaging

/// The SQLite consumer target of the analytics consumers. It keeps the kernel's consumer contract — in one transaction,
/// skip what was applied (dedupe records), apply the rest, record the new versions and store the source position
/// (`consumer:<name>:<source>` in `es_projections`), stop loudly on an event it cannot read — but applies a batch
/// in a few parts, each one plan (``AnalyticsBatch``) and one transaction, planned on a reader while the part before it
/// is written (`SQLiteAnalyticsPipeline.swift`): dedupe records and tombstones are read once per distinct key,
/// commutative writes are aggregated, and the statements (prepared once per connection by GRDB's cache) are bound and stepped
/// through SQLite's C API.
///
/// Why not the kernel's `SQLiteConsumerTarget` with a per-event handler (the tests keep one, `SQLiteAnalyticsHandler`,
/// as the reference they compare with): measured on the 2-core machines it spent ~30 µs of CPU per event — ~8 µs in its two per-event
/// dedupe statements on `es_inbox`, whose keys carry the whole stream id (~100 bytes, user ids included), and ~7 µs per
/// analytics statement, mostly GRDB's argument binding (existentials and one closure per argument).
public struct SQLiteAnalyticsTarget: ConsumerTarget {
    public let database: SQLiteServiceDatabase
    public let name: String
    let tables: ProjectionTables
    let statements: AnalyticsStatements
    /// Events per transaction; a batch is applied in parts this size, each planned while the one before it is written
    /// (`SQLiteAnalyticsPipeline.swift`).
    let partSize: Int

    public init(database: SQLiteServiceDatabase, name: String, tables: ProjectionTables, partSize: Int = defaultPartSize) {
        self.database = database
        self.name = name
        self.tables = tables
        self.partSize = partSize
        statements = AnalyticsStatements(tables, dialect: .sqlite)
    }

    public func prepare() async throws -> [String: Int64] {
        let name = name, tables = tables
        return try await database.write { db in
            try SQLiteCheckpoints.migrate(db)
            for statement in AnalyticsSchema.createStatements(tables, dialect: .sqlite) { try db.execute(sql: statement) }
            return try Self.storedPositions(consumer: name, db: db)
        }
    }

    public func apply(_ events: [PublishedEvent]) async throws -> Int {
        do {
            return try await applyInParts(events)
        } catch let failure as EventFailure {
            // The failing part rolled back. The runner stops loudly only on the kernel's `ConsumerFailure`, which has no
            // public initializer: let the kernel's own target raise it for the failing event (in its own transaction,
            // with a handler that only rethrows the reason, so nothing is written).
            let reporter = SQLiteConsumerTarget(database: database, handler: FailureReporter(name: name, reason: failure.reason))
            _ = try await reporter.prepare()
            _ = try await reporter.apply([failure.event])
            throw failure
        }
    }

    /// What a part applies: its statements (inbox writes last), the stream versions it leaves, the events it applies.
    struct Plan: Sendable {
        var writes: [AnalyticsWrite]
        var touched: [String: Int64]
        var applied: Int
    }

    /// Plans `batch` against `db`: stored versions (overridden by `carried`, the versions parts not yet committed
    /// leave), the tombstones, the fold. Throws ``EventFailure`` for the first new event that cannot be read.
    static func plan(_ batch: AnalyticsBatch.Prepared, carried: [String: Int64] = [:], db: Database,
                     statements: AnalyticsStatements) throws -> Plan {
        var stored = carried
        let readVersion = try db.cachedStatement(sql: statements[.inboxRead])
        for key in Set(batch.keys) where carried[key] == nil {
            if let version = try Raw.int(readVersion, [.text(key)]) { stored[key] = version }
        }
        let (decoded, touched) = try AnalyticsBatch.decode(batch, versions: stored)
        let erased = try erasedIDs(AnalyticsBatch.idsToCheck(decoded), db: db, statements: statements)
        return Plan(writes: AnalyticsBatch.plan(decoded, erased: erased, inbox: touched), touched: touched, applied: decoded.count)
    }

    /// Runs a plan's statements and stores `positions` (none for a part that is not its batch's last). Each statement
    /// is looked up in GRDB's cache once per call, not once per write (hashing its text per write was ~2 % of the
    /// writer's time).
    static func execute(_ writes: [AnalyticsWrite], positions: [String: Int64], consumer: String, db: Database,
                        statements: AnalyticsStatements) throws {
        var prepared = [Statement?](repeating: nil, count: AnalyticsStatement.allCases.count)
        for write in writes {
            let index = write.statement.rawValue
            if prepared[index] == nil { prepared[index] = try db.cachedStatement(sql: statements[write.statement]) }
            try Raw.execute(prepared[index]!, write.arguments)
        }
        for (source, position) in positions {
            try SQLiteCheckpointStore.save(position, for: "consumer:\(consumer):\(source)", in: db)
        }
    }

    /// The highest position per source in `events`: what a batch stores once all of it is applied.
    static func lastPositions(_ events: some Sequence<PublishedEvent>) -> [String: Int64] {
        var positions: [String: Int64] = [:]
        for event in events { positions[event.source] = max(positions[event.source] ?? 0, event.position) }
        return positions
    }

    /// Tombstones read whole when there are at most this many (erasures are rare); beyond, one lookup per id.
    static let wholeTombstoneLimit = 10_000

    /// Which of `ids` are erased. With few tombstones (the usual case) they are read at once, and with none no id is
    /// even hashed; a batch checks ~20,000 ids, which one lookup each cost ~4 % of the ingest.
    static func erasedIDs(_ candidates: @autoclosure () -> Set<String>, db: Database, statements: AnalyticsStatements,
                          wholeLimit: Int = wholeTombstoneLimit) throws -> Set<String> {
        let all = try String.fetchAll(db, sql: statements[.tombstoneList], arguments: [wholeLimit + 1])
        if all.isEmpty { return [] }
        let ids = candidates()
        if all.count <= wholeLimit {
            let tombstones = Set(all)
            return ids.filter { tombstones.contains(AnalyticsFold.tombstone($0)) }
        }
        let readTombstone = try db.cachedStatement(sql: statements[.tombstoneRead])
        return try ids.filter { try Raw.text(readTombstone, [.text(AnalyticsFold.tombstone($0))]) != nil }
    }

    /// A handler that fails every event with `reason` (see ``apply(_:)``).
    struct FailureReporter: SQLiteEventHandler {
        let name: String
        let reason: String

        func createTables(_ db: Database) throws {}
        func handle(_ event: PublishedEvent, _ db: Database) throws { throw FailureReason(description: reason) }
    }
}

/// The reason a reporter handler rethrows.
struct FailureReason: Error, CustomStringConvertible {
    var description: String
}

/// Binding and stepping GRDB-prepared statements through SQLite's C API (no per-argument existentials or closures).
enum Raw {
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ statement: Statement, _ arguments: [SQLArg]) {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument {
            case .int(let value?): sqlite3_bind_int64(handle, index, value)
            case .text(let value?): sqlite3_bind_text(handle, index, value, -1, transient)
            case .int(nil), .text(nil): sqlite3_bind_null(handle, index)
            }
        }
    }

    /// Runs a statement that returns no rows.
    static func execute(_ statement: Statement, _ arguments: [SQLArg]) throws {
        bind(statement, arguments)
        let handle = statement.sqliteStatement
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        try check(code, handle)
    }

    /// The first column of the first row as an integer (`nil` without a row).
    static func int(_ statement: Statement, _ arguments: [SQLArg]) throws -> Int64? {
        bind(statement, arguments)
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW {
            let value = sqlite3_column_int64(handle, 0)
            sqlite3_reset(handle)
            return value
        }
        try check(code, handle)
        return nil
    }

    /// The first column of the first row as text (`nil` without a row).
    static func text(_ statement: Statement, _ arguments: [SQLArg]) throws -> String? {
        bind(statement, arguments)
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW {
            let value = sqlite3_column_text(handle, 0).map { String(cString: $0) }
            sqlite3_reset(handle)
            return value
        }
        try check(code, handle)
        return nil
    }

    private static func check(_ code: Int32, _ handle: OpaquePointer) throws {
        defer { sqlite3_reset(handle) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))),
                                sql: String(cString: sqlite3_sql(handle)))
        }
    }
}
