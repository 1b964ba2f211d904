import ArgumentParser
import Contracts
import Foundation
import Logging
import ServiceTesting
import TourManagement

/// `waypoint-bench commerce`: bundle build time for a 50-stop tour, purchase → entitlement latency, review → discovery
/// latency.
struct CommerceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commerce",
        abstract: "Measures offline bundle builds, purchase-to-entitlement and review-to-discovery latency (in process, SQLite).",
        discussion: """
            bundle_build_ms_50_stops: median of --bundle-builds builds of a 50-stop tour (each stop with text and two media \
            entries) into a fresh SQLite file, including VACUUM and the SHA-256 of the file. purchase_to_entitlement_ms: see \
            PurchaseBench.swift. review_to_discovery_ms: see ReviewBench.swift.
            """
    )

    @Option(help: "Bundle builds measured (after 3 warm-up builds).")
    var bundleBuilds = 30

    @Option(help: "Purchases measured.")
    var purchases = 300

    @Option(help: "Reviews measured.")
    var reviews = 200

    struct Figures: Encodable {
        struct Percentiles: Encodable {
            var p50: Double
            var p99: Double
        }

        struct P99: Encodable {
            var p99: Double
        }

        var bundle_build_ms_50_stops: Double
        var purchase_to_entitlement_ms: Percentiles
        var review_to_discovery_ms: P99
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.commerce")
        let bundle = try Self.measureBundleBuild(builds: bundleBuilds)
        logger.info("bundle build (50 stops): median \(bundle) ms")
        let purchase = try await measurePurchaseToEntitlement(iterations: purchases)
        logger.info("purchase → entitlement: p50 \(purchase.p50) ms, p99 \(purchase.p99) ms")
        let review = try await measureReviewToDiscovery(iterations: reviews)
        logger.info("review → discovery: p50 \(review.p50) ms, p99 \(review.p99) ms")
        try BenchOutput.printJSON(Figures(bundle_build_ms_50_stops: bundle,
                                          purchase_to_entitlement_ms: .init(p50: purchase.p50, p99: purchase.p99),
                                          review_to_discovery_ms: .init(p99: review.p99)))
    }

    /// Median milliseconds to build the bundle of a 50-stop tour.
    static func measureBundleBuild(builds: Int) throws -> Double {
        let directory = TemporaryDirectory("waypoint-bench-bundles")
        defer { directory.remove() }
        let text = String(repeating: "The stop's story, told for travellers who walk the town on their own. ", count: 12)
        var stops: [TourStop] = []
        for index in 0..<50 {
            let image = StopMedia(sha256: String(format: "%064x", index * 2 + 1), kind: "image", contentType: "image/jpeg", size: 1_000_000)
            let audio = StopMedia(sha256: String(format: "%064x", index * 2 + 2), kind: "audio", contentType: "audio/mpeg", size: 1_000_000)
            let location = LatLng(lat: 48.40 + Double(index) / 2_000, lng: 15.60)
            stops.append(TourStop(stopId: .v4(), name: "Stop \(index)", description: text, location: location, triggerRadiusMetres: 30,
                                  media: [image, audio]))
        }
        let details = TourDetails(title: "Fifty stops", description: text, destinationId: 2_773_300, themes: [.history], languages: ["en"],
                                  price: Money(amountMinor: 999, currency: .eur), estimatedMinutes: 240, difficulty: .moderate, mode: .walk)
        let tour = PublishedTour(tourId: .v4(), guideId: .v4(), revision: 1, details: details, stops: stops)
        var samples: [Double] = []
        for build in 0..<(builds + 3) {
            let start = ContinuousClock.now
            _ = try OfflineBundleBuilder.build(tour, version: build + 1, createdAt: Date(), into: directory.url)
            let elapsed = ContinuousClock.now - start
            if build >= 3 { samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1_000) }
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}
