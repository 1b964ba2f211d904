@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Hummingbird
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Testing

/// analytics consuming auth and tour-management over their real embedded feeds (stand-ins on loopback serving their
/// own `ServiceStorage` logs): live consumption, lag metric and readiness, and rebuild = live while the live consumers
/// keep running.
@Suite("analytics: live consumers, lag and readiness, rebuild = live")
struct AnalyticsConsumersTests {
    static let token = "internal-token-for-analytics-tests-0123"

    /// A producing service's stand-in: its own log, served as the embedded feed.
    struct Producer: Sendable {
        let storage: ServiceStorage
        let url: URL
        let source: String

        /// Appends the event as the producer would have (same id, type and payload; the store assigns the position).
        func append(_ events: [PublishedEvent]) async throws {
            for event in events where event.source == source {
                let new = NewEvent(eventID: event.eventID, eventType: event.eventType, schemaVersion: event.schemaVersion, payload: event.payload)
                _ = try await storage.store.append([new], to: event.streamID, expectedVersion: .any)
            }
        }

        func published() async throws -> [PublishedEvent] {
            try await storage.store.readAll(after: 0, limit: 100_000).map { PublishedEvent($0, source: source) }
        }
    }

    static func withProducer<T: Sendable>(_ name: String, _ body: @Sendable (Producer) async throws -> T) async throws -> T {
        try await TestBackend.sqlite.withServiceStorage(name, logger: AnalyticsHarness.quiet) { storage in
            try await LoopbackServer.run({ reportPort in
                try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: name, port: 0, internalToken: token, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: AnalyticsHarness.quiet,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in storage.addFeedRoutes(to: routes) }
            }, body: { port in
                try await body(Producer(storage: storage, url: URL(string: "http://127.0.0.1:\(port)")!, source: name))
            })
        }
    }

    static func configuration(_ storage: ServiceStorage, auth: Producer, tours: Producer) -> AnalyticsConfiguration {
        AnalyticsConfiguration(
            service: ServiceConfiguration(serviceName: "analytics", port: 0, internalToken: token, logLevel: .warning),
            runtime: storage.settings,
            endpoints: ServiceEndpoints(baseURLs: ["auth": auth.url, "tour-management": tours.url]),
            topics: [.auth, .tours, .paths], maxLagEvents: 5, batchSize: 7, pollTimeout: .milliseconds(200))
    }

    /// Runs the live consumers for the duration of `body`.
    static func withConsumers<T: Sendable>(_ consumers: [AnalyticsConsumer], _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            for consumer in consumers {
                group.addTask {
                    try await consumer.runner.run()
                    return nil
                }
            }
            group.addTask { try await body() }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw TestSetupError("consumers stopped before the test ended")
        }
    }

    /// Waits until every consumer applied every event of its producer's log that analytics reads (the feed serves
    /// only those: the consumer's position is that of the last one).
    static func caughtUp(_ consumers: [AnalyticsConsumer], _ producers: [Producer]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            var done = true
            for (consumer, producer) in zip(consumers, producers) {
                let head = served(try await producer.published()).last?.position ?? 0
                switch consumer.runner.status {
                case .running(let positions, _): done = done && (positions[producer.source] ?? 0) >= head
                case .failed(let reason): throw TestSetupError("consumer failed: \(reason)")
                case .starting: done = false
                }
            }
            if done { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestSetupError("consumers did not catch up: \(consumers.map(\.runner.status))")
    }

    /// The events of `events` the producers' feeds serve analytics: the types it reads.
    static func served(_ events: [PublishedEvent]) -> [PublishedEvent] {
        events.filter { AnalyticsEvents.readers.keys.contains($0.eventType) }
    }

    /// The read model a fresh database gets from every event of the producers' logs that their feeds serve analytics
    /// (its dedupe records then hold the versions of those, as the live consumers' do).
    static func freshReplay(_ producers: [Producer]) async throws -> [String: [String]] {
        var events: [PublishedEvent] = []
        for producer in producers { events += served(try await producer.published()) }
        let all = events
        return try await AnalyticsHarness.withStorage(.sqlite) { storage in
            try await AnalyticsHarness.deliver(all, to: storage)
            return try await AnalyticsHarness.dump(storage)
        }
    }

    @Test("live consumption, then a rebuild while the live consumers run and events keep arriving, equals a fresh replay",
          .timeLimit(.minutes(3)), arguments: TestBackend.enabled)
    func rebuildEqualsLive(backend: TestBackend) async throws {
        try await Self.withProducer("auth") { auth in
            try await Self.withProducer("tour-management") { tours in
                let log = Scenario.events
                try await auth.append(log.events)
                try await tours.append(log.events)
                try await AnalyticsHarness.withStorage(backend) { storage in
                    let configuration = Self.configuration(storage, auth: auth, tours: tours)
                    let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: AnalyticsHarness.quiet)
                    let metrics = ServiceMetrics()
                    let consumers = try server.consumers(metrics: metrics, logger: AnalyticsHarness.quiet)
                    #expect(consumers.map(\.topic) == [.auth, .tours], "no producer URL for waypoint.paths: not consumed, start-up fine")
                    try await Self.withConsumers(consumers) {
                        try await Self.caughtUp(consumers, [auth, tours])
                        let live = try await AnalyticsHarness.dump(storage)
                        let figures = try await AnalyticsHarness.figures(storage)
                        #expect(figures.g1.views == 6)

                        // Rebuild with nothing new: the same tables, one generation later.
                        let first = try await AnalyticsRebuild(configuration: configuration, storage: storage, logger: AnalyticsHarness.quiet).run()
                        #expect(first.generation == 2)
                        let expectedCounts = ["waypoint.auth": Self.served(log.from("auth")).count,
                                              "waypoint.tours": Self.served(log.from("tour-management")).count]
                        #expect(first.appliedEvents == expectedCounts)
                        #expect(try await AnalyticsDatabase(storage).liveGeneration() == 2)
                        #expect(try await AnalyticsHarness.dump(storage) == live)
                        #expect(try await AnalyticsHarness.figures(storage) == figures)

                        // Rebuild while events keep arriving (erasures included) and the live consumers apply them.
                        var erasureLog = EventLog()
                        Scenario.erasures(&erasureLog)
                        var more = EventLog()
                        for minute in 0..<30 {
                            more.add(TourViewed(tourId: Scenario.id(Scenario.t1), guideId: Scenario.id(Scenario.g1), viewer: "client:\(minute % 7)",
                                                userId: nil, viewedAt: Scenario.date("2026-03-25T10:00:00Z").addingTimeInterval(Double(minute) * 60)),
                                     stream: "views-\(Scenario.t1)")
                        }
                        let erasures = erasureLog.events, views = more.events
                        async let appended: Void = {
                            for chunk in stride(from: 0, to: views.count, by: 10) {
                                try await tours.append(Array(views[chunk..<min(chunk + 10, views.count)]))
                                try await Task.sleep(for: .milliseconds(5))
                            }
                            try await auth.append(erasures)
                        }()
                        let second = try await AnalyticsRebuild(configuration: configuration, storage: storage, logger: AnalyticsHarness.quiet).run()
                        try await appended
                        #expect(second.generation == 3)
                        try await Self.caughtUp(consumers, [auth, tours])
                        #expect(try await AnalyticsHarness.dump(storage) == (try await Self.freshReplay([auth, tours])))
                        #expect(try await AnalyticsHarness.figures(storage).g1.views == 36)
                    }
                }
            }
        }
    }

    @Test("lag is a metric and a readiness check: not ready until caught up, then while over the bound; a poison event is 503",
          .timeLimit(.minutes(1)))
    func lagAndReadiness() async throws {
        try await Self.withProducer("auth") { auth in
            try await Self.withProducer("tour-management") { tours in
                try await auth.append(Scenario.events.events)
                try await tours.append(Scenario.events.events)
                try await AnalyticsHarness.withStorage(.sqlite) { storage in
                    let configuration = Self.configuration(storage, auth: auth, tours: tours)
                    let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: AnalyticsHarness.quiet)
                    let metrics = ServiceMetrics()
                    let consumers = try server.consumers(metrics: metrics, logger: AnalyticsHarness.quiet)
                    let readiness = Readiness()
                    for consumer in consumers { consumer.register(with: readiness) }
                    let before = await readiness.evaluate()
                    #expect(before.status == "not-ready", "consumers starting")
                    try await Self.withConsumers(consumers) {
                        try await Self.caughtUp(consumers, [auth, tours])
                        try await waitUntil("readiness is ready") { await readiness.evaluate().status == "ready" }
                        let lines = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("waypoint_consumer_lag_messages{") }
                        for topic in ["waypoint.auth", "waypoint.tours"] {
                            let line = lines.first { $0.contains(#"topic="\#(topic)""#) && $0.contains(#"group="analytics.\#(topic)""#) }
                            let value = line.map { String($0.split(separator: " ").last ?? "") }
                            #expect(value == "0" || value == "0.0", "\(lines)")
                        }

                        // Over the bound after the start-up catch-up: not ready, naming the lag. The live consumer records
                        // its own lag (0) after every poll and may overwrite the 6 before readiness reads it: try again.
                        let toursConsumer = try #require(consumers.first { $0.topic == .tours })
                        try await waitUntil("readiness names the tours consumer's lag") {
                            toursConsumer.lag.record(6)
                            let lagging = await readiness.evaluate()
                            return lagging.status == "not-ready"
                                && lagging.checks.contains { $0.name == "consumer.analytics_tours" && $0.detail == "waypoint.tours: 6 events behind (bound 5)" }
                        }
                        toursConsumer.lag.record(5)
                        #expect(await readiness.evaluate().status == "ready", "at the bound is fine")

                        // A known event that does not decode stops the consumer loudly.
                        var poison = EventLog()
                        poison.add(type: PurchaseCompleted.eventType, payload: Data(#"{"tourId":"nope"}"#.utf8), stream: "access-poison",
                                   source: "tour-management")
                        try await tours.append(poison.events)
                        try await waitUntil("the tours consumer has failed") { if case .failed = toursConsumer.runner.status { return true } else { return false } }
                        let failed = await readiness.evaluate()
                        #expect(failed.status == "not-ready")
                        #expect(failed.checks.contains { $0.name == "consumer.analytics_tours" && ($0.detail ?? "").contains("PurchaseCompleted") })
                    }
                }
            }
        }
    }

    @Test("on the embedded transport analytics asks each producer for the types it reads: a position update's or a ride chunk's events are not served to it",
          .timeLimit(.minutes(1)))
    func feedAsksForItsTypes() async throws {
        try await Self.withProducer("navigation") { navigation in
            @Sendable func event(_ type: String) -> NewEvent { NewEvent(eventType: type, payload: Data(#"{"n":1}"#.utf8)) }
            for (index, type) in ["PositionsTracked", NavigationSessionStarted.eventType, "PositionsTracked", "PositionsTracked",
                                  NavigationArrived.eventType, "PositionsTracked"].enumerated() {
                _ = try await navigation.storage.store.append([event(type)], to: "navigation-session-\(index)", expectedVersion: .any)
            }
            #expect(!AnalyticsEvents.readers.keys.contains("PositionsTracked"))
            try await AnalyticsHarness.withStorage(.sqlite) { storage in
                let configuration = AnalyticsConfiguration(
                    service: ServiceConfiguration(serviceName: "analytics", port: 0, internalToken: Self.token, logLevel: .warning),
                    runtime: storage.settings, endpoints: ServiceEndpoints(baseURLs: ["navigation": navigation.url]),
                    topics: [.navigation], maxLagEvents: 5, batchSize: 7, pollTimeout: .milliseconds(200))
                let lag = TopicLag(topic: Topic.navigation.name, group: "analytics.waypoint.navigation", maxLag: 5, metrics: ServiceMetrics())
                let source = try #require(try AnalyticsConsumers.source(.navigation, configuration: configuration, storage: storage, lag: lag,
                                                                         groupID: "analytics.waypoint.navigation", logger: AnalyticsHarness.quiet))
                let events = try await source.next(maxEvents: 100, timeout: .zero, positions: [:])
                #expect(events.map(\.event.eventType) == [NavigationSessionStarted.eventType, NavigationArrived.eventType])
                #expect(events.map(\.event.position) == [2, 5])
                // A long poll is not ended by appends analytics does not read; the one it reads ends it.
                let waiting = Task { try await source.next(maxEvents: 100, timeout: .seconds(10), positions: ["navigation": 5]) }
                try await Task.sleep(for: .milliseconds(200))
                _ = try await navigation.storage.store.append([event("PositionsTracked")], to: "navigation-session-7", expectedVersion: .any)
                try await Task.sleep(for: .milliseconds(200))
                _ = try await navigation.storage.store.append([event(NavigationArrived.eventType)], to: "navigation-session-8",
                                                              expectedVersion: .any)
                let next = try await waiting.value
                #expect(next.map(\.event.position) == [8])
            }
        }
    }

    @Test("the lag rule: starting, catching up, caught up, over the bound, transport trouble, failed")
    func lagRule() {
        let lag = TopicLag(topic: "waypoint.tours", group: "analytics", maxLag: 100, metrics: ServiceMetrics())
        let running = ConsumerStatus.running(positions: [:], transportError: nil)
        #expect(lag.check(.starting) != .ready)
        #expect(lag.check(running) == .notReady("waypoint.tours: catching up after start (lag unknown)"))
        lag.record(500)
        #expect(lag.check(running) == .notReady("waypoint.tours: catching up after start (500 events behind)"))
        lag.record(50)
        #expect(lag.check(running) != .ready, "below the bound is not enough before the first catch-up")
        lag.record(0)
        #expect(lag.check(running) == .ready)
        lag.record(100)
        #expect(lag.check(running) == .ready)
        lag.record(101)
        #expect(lag.check(running) == .notReady("waypoint.tours: 101 events behind (bound 100)"))
        #expect(lag.check(.running(positions: [:], transportError: "connection refused")) == .ready,
                "producer down: lag unknown, keep serving (the kernel's rule)")
        #expect(lag.check(.failed(reason: "poison")) == .notReady("poison"))
    }
}

