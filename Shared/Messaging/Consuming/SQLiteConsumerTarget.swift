import EventSourcing
import Foundation
import GRDB

/// Applies a ``SQLiteEventHandler`` with exactly-once effect: dedupe record and source position commit with the rows.
public struct SQLiteConsumerTarget<Handler: SQLiteEventHandler>: ConsumerTarget {
    /// The service database.
    public let database: SQLiteServiceDatabase
    /// The handler.
    public let handler: Handler

    /// Creates a target.
    public init(database: SQLiteServiceDatabase, handler: Handler) {
        self.database = database
        self.handler = handler
    }

    public var name: String { handler.name }

    public func prepare() async throws -> [String: Int64] {
        let handler = handler
        return try await database.write { db in
            try SQLiteCheckpoints.migrate(db)
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS es_inbox (
                    consumer TEXT NOT NULL, source TEXT NOT NULL, stream_id TEXT NOT NULL, last_version INTEGER NOT NULL,
                    PRIMARY KEY (consumer, source, stream_id)) WITHOUT ROWID
                """)
            try handler.createTables(db)
            let prefix = "consumer:\(handler.name):"
            let rows = try Row.fetchAll(db, sql: "SELECT name, position FROM es_projections WHERE name LIKE ? || '%'", arguments: [prefix])
            return Dictionary(uniqueKeysWithValues: rows.map { (String(($0[0] as String).dropFirst(prefix.count)), $0[1] as Int64) })
        }
    }

    public func apply(_ events: [PublishedEvent]) async throws -> Int {
        let handler = handler
        return try await database.write { db in
            let lastVersion = try db.cachedStatement(sql: "SELECT last_version FROM es_inbox WHERE consumer = ? AND source = ? AND stream_id = ?")
            let record = try db.cachedStatement(sql: """
                INSERT INTO es_inbox (consumer, source, stream_id, last_version) VALUES (?, ?, ?, ?)
                ON CONFLICT (consumer, source, stream_id) DO UPDATE SET last_version = excluded.last_version
                """)
            var applied = 0
            var positions: [String: Int64] = [:]
            for event in events {
                positions[event.source] = max(positions[event.source] ?? 0, event.position)
                let seen = try Int64.fetchOne(lastVersion, arguments: [handler.name, event.source, event.streamID]) ?? 0
                guard event.streamVersion > seen else { continue }
                do {
                    try handler.handle(event, db)
                } catch {
                    throw ConsumerFailure(consumer: handler.name, event: event, reason: "\(error)")
                }
                try record.execute(arguments: [handler.name, event.source, event.streamID, event.streamVersion])
                applied += 1
            }
            for (source, position) in positions {
                try SQLiteCheckpointStore.save(position, for: "consumer:\(handler.name):\(source)", in: db)
            }
            return applied
        }
    }
}
