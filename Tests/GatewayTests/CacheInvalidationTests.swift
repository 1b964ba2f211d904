import Contracts
import Foundation
import Gateway
import Kafka
import Messaging
import NIOCore
import ServiceTesting
import ServiceKit
import Testing

/// The cache never outlives a change: writes through the gateway purge before their answer, events on the producer's
/// feed (embedded or Kafka) purge what they changed, a trailing read model cannot put an old answer back, and nothing is
/// stored while the follower is not live.
@Suite("Cache invalidation: writes, events on both transports, trailing read models, lost feeds")
struct CacheInvalidationTests {
    static let list = "/v1/tours?destinationId=2993458&themes=history"

    /// The gateway's cache follows the stand-in's embedded feed.
    static func followingFeed(_ configuration: inout GatewayConfiguration) {
        let url = configuration.endpoints.baseURL(of: "tour-management")!.absoluteString
        configuration.cacheEvents = .embedded(EmbeddedFeed(source: "tour-management", baseURL: url, internalToken: "internal-token-1234"))
    }

    /// Waits until the cache stores (its follower is live).
    static func waitUntilStoring(_ gateway: GatewayHarness) async throws {
        #expect(try await eventually(timeout: .seconds(30)) { gateway.app.cache!.store.isStoring }, "the follower never went live")
    }

    /// A list of tours as the gateway answers it.
    static func tours(_ answer: Answer) throws -> [String] {
        try answer.json([String: [String]].self)["tours"] ?? []
    }

    @Test("the writer sees its change at once: a successful POST purges before its answer, even with no event follower")
    func writerSeesItsChange() async throws {
        let catalogue = CatalogueStandIn()
        try await GatewayHarness.run(upstreams: ["tour-management": catalogue.standIn]) { (gateway: GatewayHarness) async throws in
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
            let tour = UUID.v4()
            let published = try await gateway.send(.POST, "/v1/tours/\(tour.uuidString.lowercased())/publish")
            #expect(published.status == 200)
            #expect(published.header("waypoint-position") == nil, "internal fields do not reach clients")
            let after = try await gateway.send(.GET, Self.list)
            #expect(after.header("x-cache") == "miss")
            #expect(try Self.tours(after) == [tour.uuidString.lowercased()])
            #expect(after.header("cache-tag") == nil && after.header("waypoint-position") == nil)
            // A failed write purges nothing.
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.POST, "/v1/tours/not-a-route/x/y").status == 404)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
        }
    }

    @Test("a change that did not go through the gateway (an event on the embedded feed) purges the list and the tour")
    func embeddedEventPurges() async throws {
        let catalogue = CatalogueStandIn()
        try await GatewayHarness.run(upstreams: ["tour-management": catalogue.standIn], configure: Self.followingFeed) { (gateway: GatewayHarness) async throws in
            try await Self.waitUntilStoring(gateway)
            let tour = UUID.v4(), other = UUID.v4()
            let detail = "/v1/tours/\(tour.uuidString.lowercased())", otherDetail = "/v1/tours/\(other.uuidString.lowercased())"
            for path in [Self.list, detail, otherDetail] { _ = try await gateway.send(.GET, path) }
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
            #expect(try await gateway.send(.GET, detail).header("x-cache") == "hit")
            // An event type the gateway does not know purges nothing and does not stall the follower.
            try catalogue.append("SomethingNewer", tourId: tour)
            try catalogue.append(TourPublished.eventType, tourId: tour)
            #expect(try await eventually {
                try Self.tours(try await gateway.send(.GET, Self.list)) == [tour.uuidString.lowercased()]
            }, "the list was not purged")
            #expect(try await gateway.send(.GET, detail).text.contains(#""listed":true"#))
            #expect(try await gateway.send(.GET, otherDetail).header("x-cache") == "hit", "another tour's detail was not touched")
            let metrics = try await gateway.send(.GET, "/metrics").text
            let purges = metrics.split(separator: "\n").first { $0.hasPrefix(#"gateway_cache_purges_total{reason="event"} "#) }
            #expect((purges.flatMap { Double($0.split(separator: " ")[1]) } ?? 0) >= 1, "\(String(describing: purges))")
            #expect(metrics.contains("gateway_cache_storing 1"))
        }
    }

    @Test("a read model that trails the event never puts the old answer back (embedded feed)")
    func trailingReadModelEmbedded() async throws {
        let catalogue = CatalogueStandIn()
        try await GatewayHarness.run(upstreams: ["tour-management": catalogue.standIn], configure: Self.followingFeed) { (gateway: GatewayHarness) async throws in
            try await Self.waitUntilStoring(gateway)
            try await Self.trailingReadModel(gateway, catalogue) { try catalogue.append(TourPublished.eventType, tourId: $0, trailing: true) }
        }
    }

    /// Caches the list, publishes with a read model that has not applied it (`publish`), waits for the purge, and checks
    /// that the old answer passes but is not stored, until the read model catches up.
    static func trailingReadModel(_ gateway: GatewayHarness, _ catalogue: CatalogueStandIn,
                                  publish: @Sendable (UUID) async throws -> Int64) async throws {
        let old = try tours(try await gateway.send(.GET, list))
        #expect(try await gateway.send(.GET, list).header("x-cache") == "hit")
        let tour = UUID.v4()
        let position = try await publish(tour)
        #expect(try await eventually(timeout: .seconds(30)) { gateway.app.cache!.store.floor(of: "tour-management/tours") >= position })
        let before = catalogue.listRequests
        for _ in 0..<3 {
            let stale = try await gateway.send(.GET, list)
            #expect(stale.header("x-cache") == "miss", "status \(stale.status): \(stale.text.prefix(300))")
            #expect(try tours(stale) == old)
        }
        #expect(catalogue.listRequests == before + 3, "an answer older than the event was stored")
        catalogue.catchUp()
        #expect(try tours(try await gateway.send(.GET, list)) == old + [tour.uuidString.lowercased()])
        let hit = try await gateway.send(.GET, list)
        #expect(hit.header("x-cache") == "hit")
        #expect(try tours(hit) == old + [tour.uuidString.lowercased()])
    }

    @Test("while the feed is unreachable the cache is empty and stores nothing; it stores again once the feed answers")
    func lostFeedStopsStoring() async throws {
        let catalogue = CatalogueStandIn()
        try await GatewayHarness.run(upstreams: ["tour-management": catalogue.standIn], configure: Self.followingFeed) { (gateway: GatewayHarness) async throws in
            try await Self.waitUntilStoring(gateway)
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
            catalogue.setFeedAvailable(false)
            // The follower's long poll ends when an event arrives (or after 5 s): the next poll fails.
            try catalogue.append("SomethingNewer", tourId: .v4())
            #expect(try await eventually(timeout: .seconds(30)) { !gateway.app.cache!.store.isStoring })
            #expect(gateway.app.cache!.store.usage.entries == 0)
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "miss")
            catalogue.setFeedAvailable(true)
            try await Self.waitUntilStoring(gateway)
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
        }
    }

    @Test("on Kafka: an event on waypoint.tours purges within the bound, and a trailing read model re-caches nothing")
    func kafka() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic(Topic.tours.name)
        let properties = KafkaMockCluster.clientProperties.merging(["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]) { $1 }
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "test",
                                                                           properties: KafkaMockCluster.clientProperties),
                                         logger: LoopbackServer.quietLogger)
        let catalogue = CatalogueStandIn()
        /// Appends to the stand-in's log and publishes the new events on waypoint.tours, as tour-management's relay does.
        @Sendable func publish(_ eventType: String, _ tour: UUID, trailing: Bool) async throws -> Int64 {
            let head = catalogue.head
            let position = try catalogue.append(eventType, tourId: tour, trailing: trailing)
            try await producer.send(catalogue.events(after: head).map { $0.kafkaMessage(topic: Topic.tours.name) })
            return position
        }
        try await GatewayHarness.run(upstreams: ["tour-management": catalogue.standIn], configure: {
            $0.cacheEvents = .kafka(brokers: cluster.bootstrapServers, properties: properties)
        }) { (gateway: GatewayHarness) async throws in
            try await Self.waitUntilStoring(gateway)
            let tour = UUID.v4()
            _ = try await gateway.send(.GET, Self.list)
            #expect(try await gateway.send(.GET, Self.list).header("x-cache") == "hit")
            _ = try await publish("SomethingNewer", tour, trailing: false)
            _ = try await publish(TourPublished.eventType, tour, trailing: false)
            #expect(try await eventually(timeout: .seconds(20)) {
                try Self.tours(try await gateway.send(.GET, Self.list)) == [tour.uuidString.lowercased()]
            }, "the list was not purged")
            try await Self.trailingReadModel(gateway, catalogue) { try await publish(TourPublished.eventType, $0, trailing: true) }
        }
        await producer.shutdown()
    }

    @Test("the store purges by tag, keeps answers below a tag's floor out, and bounds its floors by folding them per producer")
    func storeTagsAndFloors() {
        let cache = ResponseCache(maximumEntries: 100, maximumBytes: 1 << 20, maximumEntryBytes: 1 << 16, maximumFloors: 3)
        func entry() -> CachedResponse { CachedResponse(headers: [:], bytes: [1, 2, 3], storedAt: .now, expiresAt: .now + .seconds(30)) }
        let list = ["tm/*", "tm/tours"], detail = ["tm/*", "tm/tour:1"]
        #expect(cache.store("list", entry(), tags: list, position: 5, fetchedAt: cache.mark))
        #expect(cache.store("detail", entry(), tags: detail, position: 5, fetchedAt: cache.mark))
        #expect(cache.purge(tags: ["tm/tours"], position: 7) == 1)
        #expect(cache.lookup("list") == nil && cache.lookup("detail") != nil)
        // Below the floor: a read model that has not applied position 7 yet.
        #expect(!cache.store("list", entry(), tags: list, position: 6, fetchedAt: cache.mark))
        #expect(cache.store("list", entry(), tags: list, position: 7, fetchedAt: cache.mark))
        // Without a position: stored only if nothing was purged since the fetch began.
        let mark = cache.mark
        cache.purge(tags: ["tm/unrelated"], position: nil)
        #expect(!cache.store("plain", entry(), tags: ["tm/*"], fetchedAt: mark))
        #expect(cache.store("plain", entry(), tags: ["tm/*"], fetchedAt: cache.mark))
        // More floors than allowed fold into tm/*, which every entry of the producer carries.
        for id in 2...5 { cache.purge(tags: ["tm/tour:\(id)"], position: Int64(10 + id)) }
        #expect(cache.floor(of: "tm/*") == 14, "tour:2…4 folded when the fourth floor came")
        #expect(!cache.store("detail", entry(), tags: detail, position: 13, fetchedAt: cache.mark))
        // Everything goes, and nothing is stored until storing resumes.
        let before = cache.mark
        #expect(cache.purgeAll(stopStoring: true) == 3)
        #expect(!cache.store("detail", entry(), tags: detail, position: 99, fetchedAt: cache.mark))
        cache.resumeStoring()
        #expect(!cache.store("detail", entry(), tags: detail, position: 99, fetchedAt: before), "fetched before the purge")
        #expect(cache.store("detail", entry(), tags: detail, position: 99, fetchedAt: cache.mark))
        #expect(cache.usage.entries == 1)
        #expect(cache.usage.bytes == ResponseCache.cost("detail", entry(), tags: detail))
    }

    @Test("CACHE_EVENTS: on by default (embedded feed of tour-management, or Kafka with KAFKA_BROKERS), off on request")
    func configuration() throws {
        let embedded = try GatewayConfiguration.fromEnvironment(["WAYPOINT_INTERNAL_TOKEN": "internal-token-1234"])
        guard case .embedded(let feed)? = embedded.cacheEvents else { Issue.record("not the embedded feed"); return }
        #expect(feed.source == "tour-management" && feed.baseURL == "http://127.0.0.1:8082" && feed.internalToken == "internal-token-1234")
        guard case .kafka(let brokers, _)? = try GatewayConfiguration.fromEnvironment(["WAYPOINT_KAFKA_BROKERS": "k:9092"]).cacheEvents else {
            Issue.record("not Kafka"); return
        }
        #expect(brokers == "k:9092")
        #expect(try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_CACHE_EVENTS": "off"]).cacheEvents == nil)
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_CACHE_EVENTS": "maybe"]) }
    }
}
