@testable import Analytics
import EventSourcing
import GRDB
import Messaging

/// The per-event reference implementation the batch target is compared with: applies one topic's events to the analytics
/// tables of a SQLite database (generation `tables`) inside the kernel's `SQLiteConsumerTarget` transaction, one event
/// and one statement at a time. The consumers use `SQLiteAnalyticsTarget`, which plans whole batches;
/// `AnalyticsProjectionTests` proves both write the same tables. Only the tests use it, so it lives here.
struct SQLiteAnalyticsHandler: SQLiteEventHandler {
    let name: String
    let tables: ProjectionTables
    let statements: AnalyticsStatements

    init(name: String, tables: ProjectionTables) {
        self.name = name
        self.tables = tables
        statements = AnalyticsStatements(tables, dialect: .sqlite)
    }

    func createTables(_ db: Database) throws {
        for statement in AnalyticsSchema.createStatements(tables, dialect: .sqlite) { try db.execute(sql: statement) }
    }

    func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard let fact = try AnalyticsEvents.fact(event) else { return }
        let ids = AnalyticsFold.idsToCheck(fact)
        var erased: Set<String> = []
        if !ids.isEmpty {
            let tombstones = ids.map(AnalyticsFold.tombstone)
            let lookup = try db.cachedStatement(sql: statements[.erasedLookup])
            let found = Set(try String.fetchAll(lookup, arguments: [tombstones[0], tombstones[tombstones.count - 1]]))
            erased = Set(zip(ids, tombstones).filter { found.contains($0.1) }.map(\.0))
        }
        for write in AnalyticsFold.writes(fact, eventID: event.eventID, erased: erased) {
            try db.cachedStatement(sql: statements[write.statement]).execute(arguments: write.sqliteArguments)
        }
    }
}

extension AnalyticsWrite {
    /// The write's arguments bound for GRDB.
    var sqliteArguments: StatementArguments {
        StatementArguments(arguments.map(\.sqliteValue))
    }
}
