import EventSourcing
import Foundation
import PostgresNIO

/// Applies a ``PostgresEventHandler`` with exactly-once effect: dedupe record and source position commit with the rows.
public struct PostgresConsumerTarget<Handler: PostgresEventHandler>: ConsumerTarget {
    /// The service database.
    public let database: PostgresServiceDatabase
    /// The handler.
    public let handler: Handler

    /// Creates a target.
    public init(database: PostgresServiceDatabase, handler: Handler) {
        self.database = database
        self.handler = handler
    }

    public var name: String { handler.name }

    public func prepare() async throws -> [String: Int64] {
        try await database.createSchemaIfNeeded()
        let prefix = "consumer:\(handler.name):"
        return try await database.transaction { connection in
            try await PostgresCheckpoints.migrate(connection, logger: connection.logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS es_inbox (
                    consumer text NOT NULL, source text NOT NULL, stream_id text NOT NULL, last_version bigint NOT NULL,
                    PRIMARY KEY (consumer, source, stream_id))
                """, logger: connection.logger)
            try await handler.createTables(connection)
            var positions: [String: Int64] = [:]
            let rows = try await connection.query(
                "SELECT name, position FROM es_projections WHERE starts_with(name, \(prefix))", logger: connection.logger)
            for try await (name, position) in rows.decode((String, Int64).self) {
                positions[String(name.dropFirst(prefix.count))] = position
            }
            return positions
        }
    }

    public func apply(_ events: [PublishedEvent]) async throws -> Int {
        try await database.transaction { connection in
            var applied = 0
            var positions: [String: Int64] = [:]
            for event in events {
                positions[event.source] = max(positions[event.source] ?? 0, event.position)
                // Locks the dedupe row, so two instances of the consumer cannot both apply one event. The row is made
                // first when the stream is new: without it `FOR UPDATE` would lock nothing, and two instances racing on
                // a stream's first event would both apply it (the second insert waits for the first's commit instead).
                try await connection.query("""
                    INSERT INTO es_inbox (consumer, source, stream_id, last_version)
                    VALUES (\(handler.name), \(event.source), \(event.streamID), 0) ON CONFLICT (consumer, source, stream_id) DO NOTHING
                    """, logger: connection.logger)
                var seen: Int64 = 0
                for try await version in try await connection.query("""
                    SELECT last_version FROM es_inbox WHERE consumer = \(handler.name) AND source = \(event.source)
                    AND stream_id = \(event.streamID) FOR UPDATE
                    """, logger: connection.logger).decode(Int64.self) { seen = version }
                guard event.streamVersion > seen else { continue }
                do {
                    try await handler.handle(event, connection)
                } catch {
                    throw ConsumerFailure(consumer: handler.name, event: event, reason: "\(error)")
                }
                try await connection.query("""
                    INSERT INTO es_inbox (consumer, source, stream_id, last_version)
                    VALUES (\(handler.name), \(event.source), \(event.streamID), \(event.streamVersion))
                    ON CONFLICT (consumer, source, stream_id) DO UPDATE SET last_version = excluded.last_version
                    """, logger: connection.logger)
                applied += 1
            }
            for (source, position) in positions {
                try await PostgresCheckpointStore.save(position, for: "consumer:\(handler.name):\(source)", on: connection)
            }
            return applied
        }
    }
}
