import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceTesting
import TourManagement

/// Purchase → payment → entitlement latency, in process on SQLite in a temporary directory, in milliseconds.
///
/// Each iteration is a new traveller buying one published tour: `Purchases.purchase` (access stream appended, sandbox
/// checkout stored) → the sandbox's confirm (a Stripe-shaped `checkout.session.completed`, HMAC-signed and verified by
/// the webhook path, `PurchaseCompleted` appended) → the `entitlements` read model answering `isEntitled`. The
/// projection runs as in the service: a `ProjectionRunner` following the log (woken by the in-process append
/// notification, default 100 ms poll interval for other processes); the entitlement is polled every 0.2 ms.
/// Ten warm-up iterations are not counted.
func measurePurchaseToEntitlement(iterations: Int) async throws -> (p50: Double, p99: Double) {
    let logger = {
        var logger = Logger(label: "waypoint.bench.purchases")
        logger.logLevel = .warning
        return logger
    }()
    let directory = TemporaryDirectory("waypoint-bench-purchases")
    defer { directory.remove() }
    let settings = RuntimeSettings(serviceName: "tour-management", dataDirectory: directory.url,
                                   backend: .sqlite(path: directory.url.appendingPathComponent("tour-management.sqlite").path))
    return try await ServiceStorage.withOpen(settings, logger: logger) { storage in
        let commerce = try await Commerce.open(CommerceConfiguration(), stores: try await TourManagementStores.open(storage), logger: logger)
        let purchases = commerce.purchases()
        let store = AnyEventStore(storage.store)

        let tour = UUID.v4()
        let stops = [TourStop(stopId: .v4(), name: "Steiner Tor", description: "", location: LatLng(lat: 48.4098, lng: 15.5976), triggerRadiusMetres: 30, media: []),
                     TourStop(stopId: .v4(), name: "Piaristenkirche", description: "", location: LatLng(lat: 48.4112, lng: 15.6010), triggerRadiusMetres: 30, media: [])]
        let details = TourDetails(title: "Krems old town", description: "Gates, churches and wine.", destinationId: 2_773_300, themes: [.history],
                                  languages: ["en"], price: Money(amountMinor: 1_299, currency: .eur), estimatedMinutes: 60, difficulty: .easy, mode: .walk)
        _ = try await store.append(try TourPublished(tourId: tour, guideId: .v4(), revision: 1, details: details, stops: stops,
                                                     lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()), publishedAt: Date()).newEvent(),
                                   to: TourAggregate.streamID(tour), expectedVersion: .noStream)
        try await storage.projection(sqlite: SQLiteDiscoveryProjection(), postgres: PostgresDiscoveryProjection(), logger: logger).catchUp()
        let entitlements = storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection(), logger: logger)

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await entitlements.run() }
            defer { group.cancelAll() }
            var latencies = Latencies(resolution: 0.001)
            let clock = ContinuousClock()
            for iteration in 0..<(iterations + 10) {
                let user = UUID.v4()
                let start = clock.now
                let outcome = try await purchases.purchase(tour: tour, user: user, idempotencyKey: "bench-\(iteration)")
                guard let purchaseId = outcome.purchase.purchaseId else { throw PaymentProviderError("no purchase id") }
                _ = try await purchases.sandbox(purchaseId, user: user, confirm: true)
                while try await !commerce.entitlements.isEntitled(user: user, tour: tour) {
                    try await Task.sleep(for: .microseconds(200))
                }
                if iteration >= 10 { latencies.record(clock.now - start) }
            }
            return (latencies.percentile(0.50), latencies.percentile(0.99))
        }
    }
}
