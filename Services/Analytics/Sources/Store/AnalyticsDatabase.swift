import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// One row of an analytics query: every column is a 64-bit integer or text (or null).
struct AnalyticsRow: Sendable {
    var cells: [SQLArg]

    func int(_ index: Int) -> Int64 {
        if case .int(let value?) = cells[index] { return value }
        if case .text(let text?) = cells[index] { return Int64(text) ?? 0 }
        return 0
    }

    func text(_ index: Int) -> String? {
        switch cells[index] {
        case .text(let value): value
        case .int(let value): value.map(String.init)
        }
    }

    func optionalInt(_ index: Int) -> Int64? {
        switch cells[index] {
        case .int(let value): value
        case .text(let value): value.flatMap { Int64($0) }
        }
    }
}

/// A read query: text with `$n` placeholders and its arguments.
struct AnalyticsQuery: Sendable {
    var sql: String
    var arguments: [SQLArg]

    init(_ sql: String, _ arguments: [SQLArg] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// The analytics service's database on whichever backend the configuration chose: reads for the HTTP API (several
/// queries in one consistent snapshot), and the generation bookkeeping of rebuilds.
public enum AnalyticsDatabase: Sendable {
    case sqlite(SQLiteServiceDatabase)
    case postgres(PostgresServiceDatabase)

    public init(_ storage: ServiceStorage) {
        self = storage.backend(sqlite: { AnalyticsDatabase.sqlite($0) }, postgres: { AnalyticsDatabase.postgres($0) })
    }

    var dialect: AnalyticsDialect {
        if case .sqlite = self { return .sqlite }
        return .postgres
    }

    /// Runs `queries` in one read snapshot (SQLite: one read transaction; PostgreSQL: one repeatable-read transaction).
    func fetch(_ queries: [AnalyticsQuery]) async throws -> [[AnalyticsRow]] {
        switch self {
        case .sqlite(let database):
            let texts = queries.map { (AnalyticsDialect.sqlite.text($0.sql), StatementArguments($0.arguments.map(\.sqliteValue))) }
            return try await database.read { db in
                try texts.map { sql, arguments in
                    try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                        AnalyticsRow(cells: (0..<row.count).map { index in
                            switch (row[index] as DatabaseValue).storage {
                            case .null: .int(nil)
                            case .int64(let value): .int(value)
                            case .double(let value): .int(Int64(value))
                            case .string(let value): .text(value)
                            case .blob: .text(nil)
                            }
                        })
                    }
                }
            }
        case .postgres(let database):
            return try await database.client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: database.logger)
                do {
                    var results: [[AnalyticsRow]] = []
                    for query in queries {
                        var rows: [AnalyticsRow] = []
                        let sequence = try await connection.query(AnalyticsSQL.postgres(query.sql, query.arguments), logger: database.logger)
                        for try await row in sequence {
                            rows.append(AnalyticsRow(cells: try row.makeRandomAccess().map(Self.cell)))
                        }
                        results.append(rows)
                    }
                    try await connection.query("COMMIT", logger: database.logger)
                    return results
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: database.logger)
                    throw error
                }
            }
        }
    }

    private static func cell(_ cell: PostgresCell) throws -> SQLArg {
        switch cell.dataType {
        case .int8, .int4, .int2: .int(try cell.decode(Int64?.self))
        case .numeric: .int(try cell.decode(String?.self).flatMap { Int64($0) })
        default: .text(try cell.decode(String?.self))
        }
    }

    // MARK: Generations

    /// Creates the meta table and, the first time, the live tables of generation 1; returns the live generation.
    public func prepareLive() async throws -> Int {
        switch self {
        case .sqlite(let database):
            return try await database.write { db in
                try db.execute(sql: AnalyticsSchema.createMeta)
                let generation = try Int.fetchOne(db, sql: "SELECT value FROM \(AnalyticsSchema.meta) WHERE key = 'generation'") ?? 1
                try db.execute(sql: "INSERT INTO \(AnalyticsSchema.meta) (key, value) VALUES ('generation', ?) ON CONFLICT (key) DO NOTHING",
                               arguments: [generation])
                for statement in AnalyticsSchema.createStatements(ProjectionTables(generation: generation, isRebuild: false), dialect: .sqlite) {
                    try db.execute(sql: statement)
                }
                return generation
            }
        case .postgres(let database):
            try await database.createSchemaIfNeeded()
            return try await database.transaction { connection in
                try await connection.query("\(unescaped: AnalyticsSchema.createMeta)", logger: database.logger)
                // Serialises concurrent first starts.
                try await connection.query("LOCK TABLE \(unescaped: AnalyticsSchema.meta) IN SHARE ROW EXCLUSIVE MODE", logger: database.logger)
                var generation = 1
                for try await value in try await connection.query(
                    "SELECT value FROM \(unescaped: AnalyticsSchema.meta) WHERE key = 'generation'", logger: database.logger
                ).decode(Int64.self) { generation = Int(value) }
                try await connection.query("""
                    INSERT INTO \(unescaped: AnalyticsSchema.meta) (key, value) VALUES ('generation', \(Int64(generation))) ON CONFLICT (key) DO NOTHING
                    """, logger: database.logger)
                for statement in AnalyticsSchema.createStatements(ProjectionTables(generation: generation, isRebuild: false), dialect: .postgres) {
                    try await connection.query("\(unescaped: statement)", logger: database.logger)
                }
                return generation
            }
        }
    }

    /// The live generation (1 before any rebuild).
    public func liveGeneration() async throws -> Int {
        let rows = try await fetch([AnalyticsQuery("SELECT value FROM \(AnalyticsSchema.meta) WHERE key = 'generation'")])
        return rows[0].first.map { Int($0.int(0)) } ?? 1
    }

    /// Tunes SQLite's writer connection for ingest (the analytics file is this service's own): a 64 MiB page cache
    /// instead of 2 MiB, which holds the hot pages of the aggregate tables (ingest touches a page per (guide, day) key
    /// and table); and a WAL checkpoint every 65,536 pages (256 MiB) instead of 1,000. A full batch of 50,000 events
    /// dirties ~18,000 pages (measured at a million events: the dedupe records' random keys touch most of their
    /// table's leaves, and every guide's newest rows of each aggregate table), so at 16,384 every commit checkpointed
    /// and copied each hot page to the database file once per batch; at 65,536 once per ~3 batches (ingest +8 %,
    /// alternating runs). The WAL file stays at up to ~330 MB on disk between checkpoints; readers' lookups in it are
    /// hash probes (summary queries unchanged).
    public func tune() async throws {
        if case .sqlite(let database) = self {
            try await database.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = -65536")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 65536")
            }
        }
    }
}
