import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// What a store last knew of its log: the head it committed up to and the versions of streams it wrote, so that the
/// next group can be planned before it reaches the server and written in one statement (``PostgresEventStore``'s
/// planned commit). Only a hint: the server checks every assumption under the head's lock and refuses a stale plan.
final class KnownLogState: Sendable {
    private struct State {
        var head: Int64?
        var versions: [String: Int64] = [:]
        var tally = CommitTally()
    }

    /// How groups were committed since the store opened (tests and diagnostics).
    struct CommitTally: Sendable, Equatable {
        /// In one statement (``PostgresEventStore/commitPlanned(_:known:database:)``).
        var planned = 0
        /// Through the transaction.
        var transactions = 0
    }

    private let state = Mutex(State())
    /// The most stream versions remembered (for `.any` appends); the map is emptied when it would grow past this.
    static let maximumStreams = 10_000

    /// The head and each stream's current version to plan `requests` against, or `nil` when something is unknown
    /// (no head yet, or an `.any` append to a stream this store has not written since it started).
    func assumptions(for requests: [AppendRequest]) -> (head: Int64, versions: [String: Int64])? {
        state.withLock { state in
            guard let head = state.head else { return nil }
            var versions: [String: Int64] = [:]
            for request in requests where versions[request.streamID] == nil {
                switch request.expectedVersion {
                case .exact(let version): versions[request.streamID] = version
                case .noStream: versions[request.streamID] = 0
                case .any:
                    guard let known = state.versions[request.streamID] else { return nil }
                    versions[request.streamID] = known
                }
            }
            return (head, versions)
        }
    }

    /// Records a committed plan of `requests`: the new head, and the version of every stream they name (read or
    /// checked under the head's lock, then moved by the plan's rows).
    func record(_ plan: AppendPlanner.Plan, of requests: [AppendRequest], planned: Bool) {
        state.withLock { state in
            if planned { state.tally.planned += 1 } else { state.tally.transactions += 1 }
            state.head = plan.newHead
            if state.versions.count + requests.count > Self.maximumStreams { state.versions.removeAll(keepingCapacity: true) }
            for request in requests { state.versions[request.streamID] = plan.streamVersions[request.streamID] ?? 0 }
        }
    }

    /// Forgets the head and versions (after an error whose outcome is unknown).
    func forget() {
        state.withLock { state in
            state.head = nil
            state.versions.removeAll()
        }
    }

    var tally: CommitTally { state.withLock { $0.tally } }
}

extension PostgresEventStore {
    /// Writes a group in one statement and one round trip when the store's ``KnownLogState`` still holds: the group is
    /// planned here by the same ``AppendPlanner`` as ``commit(_:on:logger:)``, against the known head and stream
    /// versions, and `es_append_planned` writes it only if the head and every assumed version are still current (the
    /// head's row lock makes that check and the insert one step). `nil` when it could not: nothing known yet, a stream
    /// moved or another writer's plan won twice, or an event id is already stored (a retry) — the caller then commits
    /// through the transaction, which reads the log's state under the lock and decides every case.
    static func commitPlanned(_ requests: [AppendRequest], known: KnownLogState, database: PostgresServiceDatabase) async throws -> AppendPlanner.Plan? {
        guard let assumed = known.assumptions(for: requests) else { return nil }
        var head = assumed.head
        let versions = assumed.versions
        for _ in 0..<2 {
            let plan = AppendPlanner.plan(requests, head: head, streamVersions: versions, storedEvents: [:],
                                          recordedAt: Date().roundedToMicroseconds)
            guard !plan.rows.isEmpty else { return nil }  // every request refused on assumptions: let the transaction decide
            let outcome: Int64
            do {
                outcome = try await writePlanned(plan, head: head, versions: versions, on: database)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                return nil  // an event id is stored already: a retry, recognised by the transaction
            } catch {
                known.forget()  // whether it committed is unknown; the caller's retry is recognised by its event ids
                throw error
            }
            switch outcome {
            case Self.plannedWritten:
                known.record(plan, of: requests, planned: true)
                return plan
            case Self.plannedStreamMoved:
                return nil
            default:
                head = outcome  // another writer moved the head; plan once more against it
            }
        }
        return nil
    }

    /// `es_append_planned`'s answer when it wrote the rows.
    static let plannedWritten: Int64 = -1
    /// Its answer when a stream's version differs from the one planned against (otherwise: the current head).
    static let plannedStreamMoved: Int64 = -2

    private static func writePlanned(_ plan: AppendPlanner.Plan, head: Int64, versions: [String: Int64],
                                     on database: PostgresServiceDatabase) async throws -> Int64 {
        let streams = Array(versions.keys)
        let statement = PlannedAppend(head: head, newHead: plan.newHead, streams: streams, versions: streams.map { versions[$0]! },
                                      rows: RowColumns(plan.rows))
        // On the store's own connection of the caller's event loop when it can (no lease from the pool around a
        // one-round-trip append, and no hand-off to another thread when the caller runs on a loop).
        let rows = if let rows = try await database.appendConnections.current.use({ try await $0.execute(statement, logger: database.logger) }) {
            rows
        } else {
            try await database.client.execute(statement, logger: database.logger)
        }
        for try await outcome in rows { return outcome }
        throw EventStoreError.incompatibleSchema("es_append_planned returned no row")
    }
}

/// The call of `es_append_planned` as a prepared statement: parsed and planned once per connection, then only bound
/// and executed — the server's share of an append is the function's work and the commit.
struct PlannedAppend: PostgresPreparedStatement {
    typealias Row = Int64
    static let name = "es_append_planned_v1"
    static let sql = """
        SELECT es_append_planned($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .int8, .int8, .textArray, .int8Array, .int8Array, .uuidArray, .textArray, .int8Array, .textArray, .int4Array,
        .byteaArray, .textArray, .textArray, .textArray, .textArray, .timestamptzArray,
    ]

    var head: Int64, newHead: Int64, streams: [String], versions: [Int64], rows: RowColumns

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(head)
        bindings.append(newHead)
        bindings.append(streams)
        bindings.append(versions)
        bindings.append(rows.positions)
        bindings.append(rows.eventIDs)
        bindings.append(rows.streams)
        bindings.append(rows.versions)
        bindings.append(rows.types)
        bindings.append(rows.schemaVersions)
        bindings.append(rows.payloads)
        bindings.append(rows.correlations)
        bindings.append(rows.causations)
        bindings.append(rows.actors)
        bindings.append(rows.traces)
        bindings.append(rows.recorded)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        try row.decode(Int64.self)
    }
}
