import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The consumer names of the analytics handlers: one consumer per topic, all writing the same tables. A rebuild's
/// consumers carry the `__rebuild` suffix until the swap renames their dedupe records and positions.
public enum AnalyticsConsumerName {
    /// `analytics_auth`, `analytics_tours`, `analytics_paths`, `analytics_navigation`, `analytics_trips`.
    public static func live(_ topic: Topic) -> String {
        "analytics_\(topic.name.replacingOccurrences(of: "waypoint.", with: ""))"
    }

    /// The consumer name of a rebuild in progress.
    public static func rebuild(_ topic: Topic) -> String {
        live(topic) + "__rebuild"
    }
}

/// The per-event reference implementation: applies one topic's events to the analytics tables of a SQLite database
/// (generation `tables`) inside the kernel's `SQLiteConsumerTarget` transaction, one event and one statement at a time.
/// The consumers use ``SQLiteAnalyticsTarget``, which plans whole batches; a test proves both write the same tables.
public struct SQLiteAnalyticsHandler: SQLiteEventHandler {
    public let name: String
    let tables: ProjectionTables
    let statements: AnalyticsStatements

    public init(name: String, tables: ProjectionTables) {
        self.name = name
        self.tables = tables
        statements = AnalyticsStatements(tables, dialect: .sqlite)
    }

    public func createTables(_ db: Database) throws {
        for statement in AnalyticsSchema.createStatements(tables, dialect: .sqlite) { try db.execute(sql: statement) }
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
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
    var sqliteArguments: StatementArguments {
        StatementArguments(arguments.map(\.sqliteValue))
    }
}

extension SQLArg {
    var sqliteValue: (any DatabaseValueConvertible)? {
        switch self {
        case .int(let value): value
        case .text(let value): value
        }
    }
}

/// Binding and reading analytics statements.
enum AnalyticsSQL {
    static func postgres(_ text: String, _ arguments: [SQLArg]) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: text)
        for argument in arguments {
            switch argument {
            case .int(let value): query.binds.append(value)
            case .text(let value): query.binds.append(value)
            }
        }
        return query
    }
}
