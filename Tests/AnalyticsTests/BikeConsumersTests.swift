@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceKit
import ServiceTesting
import Testing

/// analytics consuming record-trip, path-review and navigation (and auth, for erasures) over their real embedded feeds —
/// stand-ins on loopback serving their own logs, as `AnalyticsConsumersTests` does for auth and tour-management: live
/// consumption of the three new topics, rebuild = live, and a rebuild while rides, deletions, decisions, sessions and
/// an erasure keep arriving equals a fresh replay.
@Suite("analytics: consuming waypoint.trips, waypoint.paths and waypoint.navigation; rebuild = live")
struct BikeConsumersTests {
    typealias B = BikeScenario
    typealias Producer = AnalyticsConsumersTests.Producer

    static func configuration(_ storage: ServiceStorage, _ producers: [Producer]) -> AnalyticsConfiguration {
        AnalyticsConfiguration(
            service: ServiceConfiguration(serviceName: "analytics", port: 0, internalToken: AnalyticsConsumersTests.token, logLevel: .warning),
            runtime: storage.settings,
            endpoints: ServiceEndpoints(baseURLs: Dictionary(uniqueKeysWithValues: producers.map { ($0.source, $0.url) })),
            topics: [.auth, .paths, .navigation, .trips], maxLagEvents: 5, batchSize: 7, pollTimeout: .milliseconds(200))
    }

    @Test("live consumption of the three topics, rebuild = live, then a rebuild while events (a deletion and an erasure too) keep arriving equals a fresh replay",
          .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func rebuildEqualsLive(backend: TestBackend) async throws {
        try await AnalyticsConsumersTests.withProducer("auth") { auth in
            try await AnalyticsConsumersTests.withProducer("path-review") { paths in
                try await AnalyticsConsumersTests.withProducer("navigation") { navigation in
                    try await AnalyticsConsumersTests.withProducer("record-trip") { trips in
                        try await Self.run(backend, auth: auth, paths: paths, navigation: navigation, trips: trips)
                    }
                }
            }
        }
    }

    static func run(_ backend: TestBackend, auth: Producer, paths: Producer, navigation: Producer, trips: Producer) async throws {
        var log = B.events
        log.add(UserRegistered(userId: B.id(B.r1), username: Scenario.sealed(B.r1), email: Scenario.sealed(B.r1), role: .traveller,
                               licenceNumber: nil, method: .password, registeredAt: B.date("2026-02-01T08:00:00Z")), stream: "user-\(B.r1)")
        let published = log
        let producers = [auth, paths, navigation, trips]
        for producer in producers { try await producer.append(published.events) }
        try await AnalyticsHarness.withStorage(backend) { storage in
            let configuration = Self.configuration(storage, producers)
            let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: AnalyticsHarness.quiet)
            let consumers = try server.consumers(metrics: ServiceMetrics(), logger: AnalyticsHarness.quiet)
            #expect(consumers.map(\.topic) == [.auth, .paths, .navigation, .trips], "every producer with a URL is consumed")
            try await AnalyticsConsumersTests.withConsumers(consumers) {
                try await AnalyticsConsumersTests.caughtUp(consumers, producers)
                let live = try await AnalyticsHarness.dump(storage)
                let answers = try await RiderAnalyticsTests.answers(storage)
                #expect(answers.r1.totals.trips == 6 && answers.r1.totals.distanceM == 55_846.178, "the ground truth, over the feeds")
                #expect(answers.march.review.queueLength == 2 && answers.march.review.medianTimeToDecisionS == 7_200)
                #expect(answers.march.navigation.reroutesPerSession == 0.75)

                // Rebuild with nothing new: the same tables, one generation later.
                let first = try await AnalyticsRebuild(configuration: configuration, storage: storage, logger: AnalyticsHarness.quiet).run()
                #expect(first.generation == 2)
                let served = { (source: String) in AnalyticsConsumersTests.served(published.from(source)).count }
                #expect(first.appliedEvents == ["waypoint.auth": 1, "waypoint.paths": served("path-review"),
                                                "waypoint.navigation": served("navigation"), "waypoint.trips": served("record-trip")])
                #expect(try await AnalyticsHarness.dump(storage) == live)
                #expect(try await RiderAnalyticsTests.answers(storage) == answers)

                // A rebuild while the producers keep publishing and the live consumers keep applying.
                var more = EventLog()
                for n in 0..<12 {
                    B.finished(&more, trip: 20 + n, rider: B.r1, started: "2026-04-\(String(format: "%02d", 10 + n))T08:00:00Z", distance: 1_000,
                               moving: 200, gain: 1, finished: "2026-04-\(String(format: "%02d", 10 + n))T09:00:00Z")
                }
                more.add(TripDeleted(tripId: B.trip(1), riderId: B.id(B.r1), reason: "rider", deletedAt: B.date("2026-04-20T00:00:00Z")),
                         stream: "trip-\(B.trip(1).uuidString.lowercased())")
                B.closed(&more, 5, .approved, opened: "2026-03-20T10:00:00Z", closed: "2026-03-25T10:00:00Z")
                more.add(NavigationSessionStarted(sessionId: B.session(9), kind: .route, alternative: 0, plannedDistanceM: 1, plannedDurationS: 1,
                                                  viaPoints: 0, startedAt: B.date("2026-03-28T10:00:00Z")),
                         stream: "navigation-session-\(B.session(9).uuidString.lowercased())")
                B.erasure(&more)
                let arriving = more.events
                async let appended: Void = {
                    for chunk in stride(from: 0, to: arriving.count, by: 4) {
                        for producer in producers { try await producer.append(Array(arriving[chunk..<min(chunk + 4, arriving.count)])) }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }()
                let second = try await AnalyticsRebuild(configuration: configuration, storage: storage, logger: AnalyticsHarness.quiet).run()
                try await appended
                #expect(second.generation == 3)
                try await AnalyticsConsumersTests.caughtUp(consumers, producers)
                #expect(try await AnalyticsHarness.dump(storage) == (try await AnalyticsConsumersTests.freshReplay(producers)))
                let after = try await RiderAnalyticsTests.answers(storage)
                #expect(after.r1.totals.trips == 6 - 1 + 12, "twelve new rides, trip 1 deleted")
                #expect(after.r2.totals == RideTotals(), "rider 2 erased")
                #expect(after.march.review.queueLength == 1 && after.march.review.decisions == 6)
                #expect(after.march.navigation.sessions == 5)
            }
        }
    }
}
