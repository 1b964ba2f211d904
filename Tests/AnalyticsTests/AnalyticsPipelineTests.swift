@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceTesting
import Testing

/// The SQLite target plans a part on a reader while the part before it is written; a plan made on a state that no
/// longer holds when its transaction begins must not be used.
@Suite("Analytics pipeline: a part planned ahead is planned again when an erasure or another writer came in between")
struct AnalyticsPipelineTests {
    static let tables = ProjectionTables(generation: 1, isRebuild: false)

    /// The scenario's tours events and, separately, the erasure of U1 and G2 (event ids are new on every call: compare
    /// databases filled from one call's events).
    static func events() -> (tours: [PublishedEvent], erasures: [PublishedEvent]) {
        var log = Scenario.events
        let before = log.events.count
        Scenario.erasures(&log)
        let erasures = Array(log.events[before...])
        return (log.from(Topic.tours.producingService!), erasures)
    }

    static func target(_ storage: ServiceStorage, _ topic: Topic) -> SQLiteAnalyticsTarget {
        SQLiteAnalyticsTarget(database: storage.sqlite!, name: AnalyticsConsumerName.live(topic), tables: tables)
    }

    /// The tables when the erasures are applied first and the tours events after, the ordinary way.
    static func reference(tours: [PublishedEvent], erasures: [PublishedEvent]) async throws -> [String: [String]] {
        try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let auth = target(storage, .auth), toursTarget = target(storage, .tours)
            _ = try await auth.prepare()
            _ = try await toursTarget.prepare()
            _ = try await auth.apply(erasures)
            _ = try await toursTarget.apply(tours)
            return try await AnalyticsHarness.dump(storage)
        }
    }

    @Test("an erasure committed between staging and commit: the staged plan is dropped and the part planned again")
    func erasureInBetween() async throws {
        let (tours, erasures) = Self.events()
        let expected = try await Self.reference(tours: tours, erasures: erasures)
        let result = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let auth = Self.target(storage, .auth), toursTarget = Self.target(storage, .tours)
            _ = try await auth.prepare()
            _ = try await toursTarget.prepare()
            let parts = SQLiteAnalyticsTarget.parts(of: tours, size: 5)
            let staged = try await toursTarget.stage(parts[0], carried: [:])
            _ = try await auth.apply(erasures)
            let written = try await toursTarget.write(parts, first: staged)
            #expect(!written.plannedAhead, "the tombstones changed: the staged plan must not be used")
            return try await AnalyticsHarness.dump(storage)
        }
        #expect(result == expected)
        #expect(result[AnalyticsSchema.viewers]?.contains { $0.contains(Scenario.u1) } == false, "U1's views are anonymous")
    }

    @Test("another writer of the same consumer committed in between: the part is planned again and nothing counts twice")
    func otherWriterInBetween() async throws {
        let (tours, _) = Self.events()
        let half = tours.count / 2
        let result = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let toursTarget = Self.target(storage, .tours)
            _ = try await toursTarget.prepare()
            let parts = SQLiteAnalyticsTarget.parts(of: tours, size: 5)
            let staged = try await toursTarget.stage(parts[0], carried: [:])
            // Another process applies the first half meanwhile (its positions move).
            _ = try await Self.target(storage, .tours).apply(Array(tours[..<half]))
            let written = try await toursTarget.write(parts, first: staged)
            #expect(!written.plannedAhead)
            #expect(written.applied == tours.count - half, "only the events the other writer had not applied")
            return try await AnalyticsHarness.dump(storage)
        }
        let expected = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let toursTarget = Self.target(storage, .tours)
            _ = try await toursTarget.prepare()
            _ = try await toursTarget.apply(tours)
            return try await AnalyticsHarness.dump(storage)
        }
        #expect(result == expected)
    }

    @Test("nothing in between: the parts are planned ahead, and write what the sequential plan writes")
    func plannedAhead() async throws {
        let (tours, _) = Self.events()
        let ahead = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let toursTarget = Self.target(storage, .tours)
            _ = try await toursTarget.prepare()
            let parts = SQLiteAnalyticsTarget.parts(of: tours, size: 5)
            let written = try await toursTarget.write(parts, first: try await toursTarget.stage(parts[0], carried: [:]))
            #expect(written.plannedAhead)
            #expect(written.applied == tours.count)
            return try await AnalyticsHarness.dump(storage)
        }
        let sequential = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let toursTarget = Self.target(storage, .tours)
            _ = try await toursTarget.prepare()
            let parts = SQLiteAnalyticsTarget.parts(of: tours, size: 5)
            // A stale first plan (stored positions differ) makes the transaction plan every part itself.
            var stale = try await toursTarget.stage(parts[0], carried: [:])
            stale.positions = [Topic.tours.producingService!: -1]
            let written = try await toursTarget.write(parts, first: stale)
            #expect(!written.plannedAhead)
            return try await AnalyticsHarness.dump(storage)
        }
        #expect(ahead == sequential)
    }

    @Test("an unreadable event in a later part fails the whole batch: nothing of it is committed")
    func unreadableLaterPart() async throws {
        var log = Scenario.events
        let tours = log.from(Topic.tours.producingService!)
        log.add(type: TourViewed.eventType, payload: Data("{\"not\": \"a view\"}".utf8), stream: "views-broken", source: Topic.tours.producingService!)
        let broken = log.from(Topic.tours.producingService!)
        try await AnalyticsHarness.withStorage(.sqlite) { storage in
            let toursTarget = SQLiteAnalyticsTarget(database: storage.sqlite!, name: AnalyticsConsumerName.live(.tours),
                                                    tables: Self.tables, partSize: 4)
            _ = try await toursTarget.prepare()
            await #expect(throws: (any Error).self) { _ = try await toursTarget.apply(broken) }
            let positions = try await storage.sqlite!.read { db in try SQLiteAnalyticsTarget.storedPositions(consumer: toursTarget.name, db: db) }
            #expect(positions[Topic.tours.producingService!] == nil, "no position is stored")
            #expect(try await AnalyticsHarness.dump(storage)[AnalyticsSchema.inbox]?.isEmpty == true, "no part was committed")
            // The good events again (a redelivery without the broken one): all of them are new.
            #expect(try await toursTarget.apply(tours) == tours.count)
        }
    }
}
