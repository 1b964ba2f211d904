import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import TourManagement

/// `review_to_discovery_ms`: how long after a traveller posts a review discovery shows it.
///
/// In process, on SQLite in a temporary directory: one published tour, `iterations` travellers who own it; the
/// entitlements, reviews and discovery projections run as background tasks with their default poll interval (as in
/// the service). Each iteration posts one review through ``ReviewCommands/post(tourId:author:rating:text:metadata:)``
/// (entitlement read, key and sealing, append) and polls `TourCatalog.tour(id)?.rating` every 0.5 ms until its count
/// includes the review. Returns p50 and p99 in milliseconds.
func measureReviewToDiscovery(iterations: Int) async throws -> (p50: Double, p99: Double) {
    precondition(iterations > 0, "iterations must be positive")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-review-bench-\(UUID.v4())", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let logger = {
        var logger = Logger(label: "waypoint.bench.reviews")
        logger.logLevel = .warning
        return logger
    }()
    let settings = RuntimeSettings(serviceName: "tour-management", dataDirectory: directory,
                                   backend: .sqlite(path: directory.appendingPathComponent("tour-management.sqlite").path))
    return try await ServiceStorage.withOpen(settings, logger: logger) { storage in
        let store = AnyEventStore(storage.store)
        let projections = [
            storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection(), logger: logger),
            storage.projection(sqlite: SQLiteReviewsProjection(), postgres: PostgresReviewsProjection(), logger: logger),
            storage.projection(sqlite: SQLiteDiscoveryProjection(), postgres: PostgresDiscoveryProjection(), logger: logger),
        ]
        let stores = try await TourManagementStores.open(storage)
        let catalog = TourCatalog(store: stores.catalog)
        let reviews = ReviewCommands(storage: storage, stores: stores)

        // One published tour and its owners.
        let tour = UUID.v4(), guide = UUID.v4(), travellers = (0..<iterations).map { _ in UUID.v4() }
        let stops = [
            TourStop(stopId: .v4(), name: "Steiner Tor", description: "The gate.", location: LatLng(lat: 48.4098, lng: 15.5976),
                     triggerRadiusMetres: 30, media: []),
            TourStop(stopId: .v4(), name: "Piaristenkirche", description: "Baroque.", location: LatLng(lat: 48.4112, lng: 15.6010),
                     triggerRadiusMetres: 30, media: []),
        ]
        let details = TourDetails(title: "Krems old town", description: "Gates and churches.", destinationId: 2_773_300, themes: [.history],
                                  languages: ["de"], price: Money(amountMinor: 0, currency: .eur), estimatedMinutes: 60, difficulty: .easy,
                                  mode: .walk)
        _ = try await store.append(
            try TourPublished(tourId: tour, guideId: guide, revision: 1, details: details, stops: stops,
                              lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()), publishedAt: Date()).newEvent(),
            to: TourAggregate.streamID(tour), expectedVersion: .noStream)
        for traveller in travellers {
            _ = try await store.append(
                try TourAcquired(tourId: tour, userId: traveller, guideId: guide, revision: 1, acquiredAt: Date()).newEvent(),
                to: "access-\(tour.uuidString.lowercased())-\(traveller.uuidString.lowercased())", expectedVersion: .noStream)
        }

        return try await withThrowingTaskGroup(of: Void.self) { group in
            for projection in projections {
                group.addTask { try await projection.run() }
            }
            defer { group.cancelAll() }
            // Wait until every projection has caught up with the setup.
            let head = try await store.headPosition()
            for projection in projections {
                while projection.status.position < head { try await Task.sleep(for: .milliseconds(1)) }
            }
            let clock = ContinuousClock()
            var milliseconds: [Double] = []
            for (index, traveller) in travellers.enumerated() {
                let start = clock.now
                _ = try await reviews.post(tourId: tour, author: traveller, rating: index % 5 + 1, text: "Review \(index): a fine walk.")
                while (try await catalog.tour(tour)?.rating.count ?? 0) < index + 1 {
                    guard clock.now - start < .seconds(10) else { throw ReviewBenchTimeout(iteration: index) }
                    try await Task.sleep(for: .microseconds(500))
                }
                let elapsed = clock.now - start
                milliseconds.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            let sorted = milliseconds.sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            return (percentile(0.50), percentile(0.99))
        }
    }
}

/// A review never became visible in discovery (a projection stopped).
struct ReviewBenchTimeout: Error, CustomStringConvertible {
    var iteration: Int
    var description: String { "review \(iteration) did not reach discovery within 10 s" }
}
