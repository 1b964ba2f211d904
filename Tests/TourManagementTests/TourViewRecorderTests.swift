import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceLifecycle
import ServiceTesting
import Testing
@testable import TourManagement

/// The view recorder writes off the request's path: queued while it runs, inline when it does not or when the queue is
/// full, everything queued written at graceful shutdown, and a view counted once per viewer, tour and hour.
@Suite("Tour view recorder")
struct TourViewRecorderTests {
    static let guide = UUID.v4()
    static let hour = Date(timeIntervalSince1970: 1_795_341_600)

    func views(_ store: AnyEventStore) async throws -> [TourViewed] {
        try await store.readAll(after: 0, limit: 10_000).filter { $0.eventType == TourViewed.eventType }.map { try $0.decode(TourViewed.self) }
    }

    @Test("without the background writer a view is written before record returns, once per viewer, tour and hour")
    func inline() async throws {
        try await NotificationTests.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            let recorder = TourViewRecorder(store: store, logger: MediaTestSupport.quiet)
            let tour = UUID.v4()
            for viewer in ["client:a", "client:a", "client:b"] {
                await recorder.record(tour: tour, guide: Self.guide, viewer: viewer, user: nil, at: Self.hour)
            }
            await recorder.record(tour: tour, guide: Self.guide, viewer: "client:a", user: nil, at: Self.hour.addingTimeInterval(3_600))
            let written = try await views(store)
            #expect(written.map(\.viewer) == ["client:a", "client:b", "client:a"])
            #expect(try await store.readStream("views-\(tour.uuidString.lowercased())").count == 3)

            // A new recorder (a restart) in the same hour: the derived event id makes the store refuse the repeat.
            let restarted = TourViewRecorder(store: store, logger: MediaTestSupport.quiet)
            await restarted.record(tour: tour, guide: Self.guide, viewer: "client:b", user: nil, at: Self.hour.addingTimeInterval(60))
            #expect(try await views(store).count == 3)
        }
    }

    @Test("while it runs, views are queued, written in the background, and all written at graceful shutdown")
    func background() async throws {
        try await NotificationTests.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            let recorder = TourViewRecorder(store: store, logger: MediaTestSupport.quiet)
            let tours = (0..<300).map { _ in UUID.v4() }
            let group = ServiceGroup(services: [recorder], logger: MediaTestSupport.quiet)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // Wait until the writer runs: a view recorded before that is written inline.
                while !recorder.isRunning { try await Task.sleep(for: .milliseconds(1)) }
                for tour in tours.prefix(200) {
                    await recorder.record(tour: tour, guide: Self.guide, viewer: "client:x", user: nil, at: Self.hour)
                }
                await recorder.flush()
                #expect(try await views(store).count == 200)
                for tour in tours.suffix(100) {
                    await recorder.record(tour: tour, guide: Self.guide, viewer: "client:x", user: nil, at: Self.hour)
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            let written = try await views(store)
            #expect(written.count == 300)
            #expect(Set(written.map(\.tourId)) == Set(tours))
        }
    }

    @Test("queued views gather for the linger, then are written together")
    func linger() async throws {
        try await NotificationTests.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            let recorder = TourViewRecorder(store: store, logger: MediaTestSupport.quiet, linger: .seconds(8))
            let group = ServiceGroup(services: [recorder], logger: MediaTestSupport.quiet)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                while !recorder.isRunning { try await Task.sleep(for: .milliseconds(1)) }
                let tours = (0..<30).map { _ in UUID.v4() }
                let clock = ContinuousClock(), start = clock.now
                for tour in tours {
                    await recorder.record(tour: tour, guide: Self.guide, viewer: "client:z", user: nil, at: Self.hour)
                }
                // The first view rang the writer, which now waits for more: nothing is in the log yet.
                #expect(try await views(store).isEmpty)
                await recorder.flush()
                #expect(clock.now - start >= .seconds(8))
                let written = try await store.readAll(after: 0, limit: 100).filter { $0.eventType == TourViewed.eventType }
                #expect(Set(try written.map { try $0.decode(TourViewed.self).tourId }) == Set(tours))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("a full queue makes record write inline, so the queue stays bounded")
    func bounded() async throws {
        try await NotificationTests.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            let recorder = TourViewRecorder(store: store, logger: MediaTestSupport.quiet, capacity: 0)
            let group = ServiceGroup(services: [recorder], logger: MediaTestSupport.quiet)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                while !recorder.isRunning { try await Task.sleep(for: .milliseconds(1)) }
                let tour = UUID.v4()
                await recorder.record(tour: tour, guide: Self.guide, viewer: "client:y", user: nil, at: Self.hour)
                // Capacity 0: nothing may wait, the view is in the log when record returns.
                #expect(try await store.readStream("views-\(tour.uuidString.lowercased())").count == 1)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }
}
