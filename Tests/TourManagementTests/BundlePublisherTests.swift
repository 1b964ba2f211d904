import Contracts
import Crypto
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceTesting
import Testing
import TourManagement

/// The bundle publisher works through `bundle_queue`, which follows the log independently of discovery: a publication
/// the queue has applied but discovery not yet must stay queued — not be dropped as "no longer listed" (under load that
/// lost the bundle of a bought tour once, in the end-to-end journey).
@Suite("tour-management: the bundle publisher and its two read models")
struct BundlePublisherTests {
    @Test("a publication discovery has not applied yet stays queued; once it has, the bundle is built and the row leaves",
          arguments: TestBackend.enabled)
    func queueAheadOfDiscovery(backend: TestBackend) async throws {
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            return logger
        }()
        let directory = TemporaryDirectory("waypoint-bundle-publisher")
        defer { directory.remove() }
        try await backend.withServiceStorage("tour-management", logger: logger) { storage in
            let store = AnyEventStore(storage.store)
            let stores = try await TourManagementStores.open(storage)
            let (queue, discovery): (any ProjectionRunning, any ProjectionRunning) = if let sqlite = storage.sqlite {
                (ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: sqlite, projection: SQLiteBundleQueueProjection())),
                 ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: sqlite, projection: SQLiteDiscoveryProjection())))
            } else {
                (ProjectionRunner(store: store, target: PostgresProjectionTarget(database: storage.postgres!, projection: PostgresBundleQueueProjection())),
                 ProjectionRunner(store: store, target: PostgresProjectionTarget(database: storage.postgres!, projection: PostgresDiscoveryProjection())))
            }
            try await queue.prepare()
            try await discovery.prepare()
            let bundles = OfflineBundles(store: store, signingKey: BundleSigningKey(privateKey: Curve25519.Signing.PrivateKey()),
                                         directory: directory.url, logger: logger)
            let publisher = BundlePublisher(bundles: bundles, catalog: storage.tourCatalog, queue: stores.bundleQueue,
                                            queueProjection: queue, discovery: discovery, logger: logger)
            let tour = UUID.v4()
            try await DiscoveryReadModelTests.publish(store, tour, title: "Krems old town", description: "Gates and churches.",
                                                      destination: DiscoveryReadModelTests.krems, themes: [.history], languages: ["en"],
                                                      price: 0, minutes: 60,
                                                      stops: [DiscoveryReadModelTests.stop("Steiner Tor", 48.4098, 15.5976),
                                                              DiscoveryReadModelTests.stop("Piaristenkirche", 48.4112, 15.6010)],
                                                      minutesAfterStart: 1)
            // The queue has the publication; discovery has not applied it yet.
            try await queue.catchUp()
            #expect(try await publisher.drain() == 0)
            #expect(try await stores.bundleQueue.queued().map(\.tourId) == [tour], "kept: discovery is behind the queue")
            #expect(try await bundles.latest(tour) == nil)
            // Discovery catches up: the bundle is built and the row leaves the queue.
            try await discovery.catchUp()
            #expect(try await publisher.drain() == 1)
            #expect(try await stores.bundleQueue.queued().isEmpty)
            #expect(try await bundles.latest(tour)?.version == 1)
            // A tour unpublished before discovery listed it: dropped once discovery has seen everything the queue has.
            let withdrawn = UUID.v4()
            try await DiscoveryReadModelTests.publish(store, withdrawn, title: "Withdrawn", description: "Was public once.",
                                                      destination: DiscoveryReadModelTests.krems, themes: [.history], languages: ["de"],
                                                      price: 0, minutes: 30,
                                                      stops: [DiscoveryReadModelTests.stop("Gozzoburg", 48.4105, 15.6003),
                                                              DiscoveryReadModelTests.stop("Simandlbrunnen", 48.4101, 15.6021)],
                                                      minutesAfterStart: 2)
            _ = try await store.append(try TourUnpublished(tourId: withdrawn, unpublishedAt: DiscoveryReadModelTests.start).newEvent(),
                                       to: TourAggregate.streamID(withdrawn), expectedVersion: .any)
            try await queue.catchUp()
            _ = try await publisher.drain()
            #expect(try await stores.bundleQueue.queued().map(\.tourId) == [withdrawn], "kept while discovery is behind")
            try await discovery.catchUp()
            #expect(try await publisher.drain() == 0)
            #expect(try await stores.bundleQueue.queued().isEmpty, "dropped: discovery has seen the unpublication")
            #expect(try await bundles.latest(withdrawn) == nil)
        }
    }
}
