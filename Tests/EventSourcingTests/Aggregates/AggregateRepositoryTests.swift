import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("Aggregates: pure decide/apply, load → decide → append")
struct AggregateRepositoryTests {
    @Test("decide and apply are plain functions, testable without a store")
    func pureDomainLogic() throws {
        let opened = Counter.apply(Counter.initialState, .opened(limit: 3))
        #expect(try Counter.decide(.increment(by: 2), opened) == [.incremented(by: 2)])
        #expect(throws: Counter.Rejection.overLimit) { try Counter.decide(.increment(by: 4), opened) }
        #expect(throws: Counter.Rejection.notOpen) { try Counter.decide(.increment(by: 1), Counter.initialState) }
    }

    @Test("commands append events at the loaded version and state is rebuilt from the stream", arguments: TestBackend.enabled)
    func executeAndReload(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let counters = repository(store)
            let metadata = EventMetadata(correlationID: UUID(), actorID: "user-7")
            try await counters.execute(.open(limit: 10), on: "counter-1", metadata: metadata)
            let outcome = try await counters.execute(.increment(by: 4), on: "counter-1")
            #expect(outcome.state.value == 4 && outcome.append?.streamVersion == 2)
            let noop = try await counters.execute(.increment(by: 0), on: "counter-1")
            #expect(noop.append == nil)
            await #expect(throws: Counter.Rejection.overLimit) {
                try await counters.execute(.increment(by: 7), on: "counter-1")
            }
            let loaded = try await counters.load("counter-1")
            #expect(loaded.state == Counter.State(value: 4, limit: 10, opened: true) && loaded.version == 2)
            let stored = try await store.readStream("counter-1")
            #expect(stored.map(\.eventType) == ["CounterOpened", "CounterIncremented"])
            #expect(stored[0].metadata == metadata)
        }
    }

    @Test("a version conflict surfaces by default and is retried against fresh state when the command allows it",
          arguments: TestBackend.enabled)
    func conflictsAndRetry(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let counters = repository(store)
            try await counters.execute(.open(limit: 1_000), on: "c")
            let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
                for _ in 0..<10 {
                    group.addTask { (try? await counters.execute(.increment(by: 1), on: "c", retries: 20)) != nil }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 })
            #expect(try await counters.load("c").state.value == 10)

            let conflicts = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do {
                            try await counters.execute(.increment(by: 1), on: "c")
                            return false
                        } catch EventStoreError.wrongExpectedVersion { return true } catch { return false }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(conflicts.count == 10)
            #expect(try await counters.load("c").state.value == 10 + conflicts.filter { !$0 }.count)
        }
    }

    @Test("with snapshots on, a long stream loads from the snapshot and replays only the tail", arguments: TestBackend.enabled)
    func snapshotsShortenLoads(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let counters = repository(store, snapshotEvery: 50)
            try await counters.execute(.open(limit: 1_000), on: "c")
            for _ in 0..<120 { try await store.append(try Counter.Incremented(by: 1).newEvent(), to: "c", expectedVersion: .any) }
            let first = try await counters.load("c")
            #expect(first.replayed == 121 && first.state.value == 120)
            try await counters.execute(.increment(by: 5), on: "c")
            let second = try await counters.load("c")
            #expect(second.state.value == 125 && second.version == 122)
            #expect(second.replayed <= 2)
            let plain = try await repository(store).load("c")
            #expect(plain.state == second.state)
        }
    }
}

/// A counter repository over whichever store the test got (opens the existential).
func repository<Store: EventStore & SnapshotStore>(_ store: Store, snapshotEvery: Int? = nil) -> AnyCounterRepository {
    AnyCounterRepository(
        execute: { command, stream, metadata, retries in
            try await AggregateRepository<Counter, Store>(store: store, snapshotEvery: snapshotEvery)
                .execute(command, on: stream, metadata: metadata, retries: retries).asCounterOutcome
        },
        load: { stream in
            let loaded = try await AggregateRepository<Counter, Store>(store: store, snapshotEvery: snapshotEvery).load(stream)
            return (loaded.state, loaded.version, loaded.replayed)
        })
}

/// The repository's operations with the store type erased, for tests parameterised over backends.
struct AnyCounterRepository: Sendable {
    let execute: @Sendable (Counter.Command, String, EventMetadata, Int) async throws -> (state: Counter.State, append: AppendResult?)
    let load: @Sendable (String) async throws -> (state: Counter.State, version: Int64, replayed: Int)

    @discardableResult
    func execute(_ command: Counter.Command, on stream: String, metadata: EventMetadata = .init(), retries: Int = 0) async throws
        -> (state: Counter.State, append: AppendResult?) {
        try await execute(command, stream, metadata, retries)
    }

    func load(_ stream: String) async throws -> (state: Counter.State, version: Int64, replayed: Int) {
        try await load(stream)
    }
}

extension AggregateRepository.Outcome where A == Counter {
    var asCounterOutcome: (state: Counter.State, append: AppendResult?) { (state, append) }
}
