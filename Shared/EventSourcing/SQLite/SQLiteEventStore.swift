import Foundation
import GRDB

/// The embedded event store: one SQLite file per service (WAL, durable commits, group commit).
///
/// Global positions are the table's integer primary key, assigned by the single writer inside the write
/// transaction, so they are gapless and in commit order.
public final class SQLiteEventStore: EventStore, SnapshotStore {
    /// The database the log lives in (shared with the service's projections).
    public let database: SQLiteServiceDatabase
    let upcasters: UpcasterChain
    let notifier = AppendNotifier()
    private let committer: GroupCommitter

    /// Opens the store in `database`, creating its tables if needed.
    public init(database: SQLiteServiceDatabase, upcasters: UpcasterChain = UpcasterChain()) async throws {
        self.database = database
        self.upcasters = upcasters
        try await database.write { db in try Self.migrate(db) }
        let pool = database.pool
        let notifier = notifier
        self.committer = GroupCommitter { requests in
            let plan = try await pool.writeWithoutTransaction { db in
                try SQLiteServiceDatabase.immediateTransaction(db) { db in try Self.commit(requests, in: db) }
            }
            if !plan.rows.isEmpty { notifier.committed(upTo: plan.newHead, events: plan.rows) }
            return plan.results
        }
    }

    /// Opens (creating if needed) a store in the SQLite file at `path`.
    public convenience init(path: String, upcasters: UpcasterChain = UpcasterChain()) async throws {
        try await self.init(database: try SQLiteServiceDatabase(path: path), upcasters: upcasters)
    }

    public func append(_ events: [NewEvent], to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult {
        let request = AppendRequest(streamID: streamID, expectedVersion: expectedVersion, events: events)
        try request.validate()
        return try await committer.submit(request)
    }

    public func readStream(_ streamID: String, fromVersion: Int64, limit: Int) async throws -> [EventEnvelope] {
        let rows = try await database.read { db in
            try Self.fetchEvents(db, sql: """
                SELECT \(Self.columns) FROM es_events WHERE stream_id = ? AND stream_version >= ?
                ORDER BY stream_version LIMIT ?
                """, arguments: [streamID, fromVersion, limit])
        }
        return try upcasters.upcast(rows)
    }

    public func readAll(after position: Int64, limit: Int) async throws -> [EventEnvelope] {
        let rows = try await database.read { db in
            try Self.fetchEvents(db, sql: "SELECT \(Self.columns) FROM es_events WHERE position > ? ORDER BY position LIMIT ?",
                                 arguments: [position, limit])
        }
        return try upcasters.upcast(rows)
    }

    /// One query in one read transaction: the head, then the events of `types` up to it (at most
    /// ``TypedPage/scanLimit`` positions on), so `scanned` never passes an event this read could not see.
    public func readAll(after position: Int64, limit: Int, types: Set<String>) async throws -> TypedPage {
        let names = upcasters.storedTypes(readingAs: types).sorted()
        let rows = try await database.read { db -> TypedPage in
            // Saturating: a reader may ask after any position up to Int64.max (a feed's `after`).
            let bound = position.addingReportingOverflow(Int64(TypedPage.scanLimit))
            let end = min(try Self.head(db), bound.overflow ? .max : bound.partialValue)
            guard end > position else { return TypedPage(events: [], scanned: position) }
            guard !names.isEmpty else { return TypedPage(events: [], scanned: end) }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            let events = try Self.fetchEvents(db, sql: """
                SELECT \(Self.columns) FROM es_events WHERE position > ? AND position <= ? AND event_type IN (\(placeholders))
                ORDER BY position LIMIT ?
                """, arguments: StatementArguments([position, end] as [any DatabaseValueConvertible] + names + [limit]))
            return TypedPage(events: events, scanned: events.count == limit ? events[limit - 1].position : end)
        }
        if upcasters.isEmpty { return rows }
        return TypedPage(events: try upcasters.upcast(rows.events).filter { types.contains($0.eventType) }, scanned: rows.scanned)
    }

    public func headPosition() async throws -> Int64 {
        try await database.read { db in try Self.head(db) }
    }

    public func streamVersion(_ streamID: String) async throws -> Int64 {
        try await database.read { db in try Self.streamVersion(streamID, db) }
    }

    public func waitForAppends(after position: Int64, timeout: Duration) async {
        await notifier.wait(after: position, timeout: timeout)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, timeout: Duration) async {
        await notifier.wait(after: position, types: upcasters.storedTypes(readingAs: types), timeout: timeout)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, where wakes: @escaping @Sendable (EventEnvelope) -> Bool,
                               timeout: Duration) async {
        await notifier.wait(after: position, types: upcasters.storedTypes(readingAs: types), wakes: wakes, timeout: timeout)
    }
}
