import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The production event store on PostgreSQL (one database per service), with group commit.
///
/// Position assignment is serialised by a row lock on `es_head` held until commit, so global positions are
/// gapless and commit in order: a reader never sees position N+1 before N, and no reader-side gap logic is needed.
public final class PostgresEventStore: EventStore, SnapshotStore {
    /// The database the log lives in (shared with the service's projections).
    public let database: PostgresServiceDatabase
    let upcasters: UpcasterChain
    let notifier = AppendNotifier()
    /// The head and stream versions the next group is planned against (``commitPlanned(_:known:database:)``).
    let known = KnownLogState()
    private let committer: GroupCommitter

    /// Opens the store, creating its tables if needed. The database must be running (see ``PostgresServiceDatabase``).
    public init(database: PostgresServiceDatabase, upcasters: UpcasterChain = UpcasterChain()) async throws {
        self.database = database
        self.upcasters = upcasters
        try await database.createSchemaIfNeeded()
        try await Self.migrate(database)
        let notifier = notifier, known = known
        // 12 bind arrays per batch regardless of size; the bound keeps one transaction's memory modest.
        self.committer = GroupCommitter(maxEventsPerBatch: 5_000) { requests in
            // One round trip when the store's last known state still holds; otherwise the transaction, which reads
            // the state under the head's lock (four round trips) and refreshes what the store knows.
            let plan: AppendPlanner.Plan
            if let planned = try await Self.commitPlanned(requests, known: known, database: database) {
                plan = planned
            } else {
                do {
                    plan = try await database.transaction { connection in
                        try await Self.commit(requests, on: connection, logger: database.logger)
                    }
                } catch {
                    known.forget()
                    throw error
                }
                known.record(plan, of: requests, planned: false)
            }
            if !plan.rows.isEmpty { notifier.committed(upTo: plan.newHead, events: plan.rows) }
            return plan.results
        }
    }

    public func append(_ events: [NewEvent], to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult {
        let request = AppendRequest(streamID: streamID, expectedVersion: expectedVersion, events: events)
        try request.validate()
        return try await committer.submit(request)
    }

    public func readStream(_ streamID: String, fromVersion: Int64, limit: Int) async throws -> [EventEnvelope] {
        let rows = try await fetchEvents("""
            SELECT \(unescaped: Self.columns) FROM es_events WHERE stream_id = \(streamID) AND stream_version >= \(fromVersion)
            ORDER BY stream_version LIMIT \(limit)
            """)
        return try upcasters.upcast(rows)
    }

    public func readAll(after position: Int64, limit: Int) async throws -> [EventEnvelope] {
        let rows = try await fetchEvents("""
            SELECT \(unescaped: Self.columns) FROM es_events WHERE position > \(position) ORDER BY position LIMIT \(limit)
            """)
        return try upcasters.upcast(rows)
    }

    public func headPosition() async throws -> Int64 {
        // es_head is only updated by committed appends, and positions are gapless, so it is the visible head.
        let rows = try await database.client.query("SELECT position FROM es_head WHERE id = 1", logger: database.logger)
        for try await position in rows.decode(Int64.self) { return position }
        return 0
    }

    public func streamVersion(_ streamID: String) async throws -> Int64 {
        let rows = try await database.client.query(
            "SELECT MAX(stream_version) FROM es_events WHERE stream_id = \(streamID)", logger: database.logger)
        for try await version in rows.decode(Int64?.self) { return version ?? 0 }
        return 0
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

    private func fetchEvents(_ query: PostgresQuery) async throws -> [EventEnvelope] {
        let rows = try await database.client.query(query, logger: database.logger)
        var events: [EventEnvelope] = []
        for try await row in rows {
            events.append(try Self.envelope(row))
        }
        return events
    }
}
