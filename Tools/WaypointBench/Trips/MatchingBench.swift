import Foundation
import Logging
import RoadNetwork

/// The map-matching figures of `waypoint-bench trips`: our matcher's time on 1-hour rides per city, its route mismatch
/// per noise σ on shorter Krems rides, and leuvenmapmatching's time and mismatch on some of the same rides.
struct MatchingBench {
    var dataDirectory: URL
    var hourRides: Int
    var rmfRides: Int
    var peerRides: Int
    var seed: UInt64
    var logger: Logger

    /// The noise levels measured, metres.
    static let sigmas = [5.0, 10.0, 20.0]
    /// The peer's script, found from the working directory or from this source file.
    static let script = "scripts/lib/peers/leuven_match.py"

    func run(into figures: inout TripsFigures) throws {
        let krems = try router("krems.osm.gz"), helsinki = try router("helsinki.osm.pbf")
        figures.matchMilliseconds = CityLatencies(krems: timeHourRides(krems, city: "krems"), helsinki: timeHourRides(helsinki, city: "helsinki"))
        let python = ProcessInfo.processInfo.environment["WAYPOINT_PEERS_PYTHON"]
        let script = Self.locateScript()
        var ours = SigmaFigures(), peer = SigmaFigures(), peerTimes = Latencies()
        var oursBeyond = SigmaFigures(), shortest = SigmaFigures(), shortestBeyond = SigmaFigures()
        let matcher = MapMatcher(router: krems), lengths = RoadWeights.lengths(of: krems.graph)
        for sigma in Self.sigmas {
            let rides = RideSimulator(router: krems).rides(count: rmfRides, length: 1_500...3_000, settings: .init(noiseSigma: sigma),
                                                           seed: seed &+ UInt64(sigma))
            let (rmf, beyond) = measure(rides, matcher: matcher, router: krems)
            logger.info("σ \(sigma) m: our mean RMF \(rmf), beyond \(Self.tolerance) m \(beyond), on \(rides.count) rides")
            set(&ours, sigma, rmf)
            set(&oursBeyond, sigma, beyond)
            // The same draw ridden along the shortest routes (riders who cut through, not following the profile).
            let cutting = RideSimulator(router: krems).rides(count: rmfRides, length: 1_500...3_000, settings: .init(noiseSigma: sigma),
                                                             seed: seed &+ UInt64(sigma), weights: lengths)
            let (shortestRMF, shortestOff) = measure(cutting, matcher: matcher, router: krems)
            logger.info("σ \(sigma) m: shortest-route rides: our mean RMF \(shortestRMF), beyond \(Self.tolerance) m \(shortestOff), on \(cutting.count) rides")
            set(&shortest, sigma, shortestRMF)
            set(&shortestBeyond, sigma, shortestOff)
            guard let python, let script, peerRides > 0 else { continue }
            let subset = Array(rides.prefix(peerRides))
            let answer = try LeuvenPeer(python: python, script: script).match(subset.map(\.observations), sigma: sigma, graph: krems.graph)
            let peerRMF = mean(zip(subset, answer.paths).map { krems.routeMismatch(truth: [$0.truth], matched: $1) })
            let oursOnSubset = mean(subset.map { krems.routeMismatch(truth: [$0.truth], matched: matcher.match($0.observations).pieces.map(\.osmNodes)) })
            logger.info("σ \(sigma) m: leuvenmapmatching mean RMF \(peerRMF) on \(subset.count) rides (ours on the same: \(oursOnSubset))")
            set(&peer, sigma, peerRMF)
            for seconds in answer.seconds { peerTimes.record(.seconds(seconds)) }
        }
        figures.matchRMF = ours
        figures.matchBeyond = oursBeyond
        figures.matchShortestRMF = shortest
        figures.matchShortestBeyond = shortestBeyond
        if python != nil, script != nil, peerRides > 0 {
            figures.peerRMF = peer
            figures.peerMatchMilliseconds = peerTimes
        }
        figures.matchNote = note(peer: python != nil && script != nil)
    }

    /// The geometric measure's tolerance, metres (``RouteMismatch/beyond(tolerance:truth:matched:)``).
    static let tolerance = 10.0

    /// Mean RMF and mean mismatch beyond ``tolerance`` of `rides` matched by `matcher`.
    private func measure(_ rides: [RideSimulator.Ride], matcher: MapMatcher, router: RoadRouter) -> (rmf: Double, beyond: Double) {
        var rmfs: [Double] = [], beyond: [Double] = []
        for ride in rides {
            let result = matcher.match(ride.observations)
            rmfs.append(router.routeMismatch(truth: [ride.truth], matched: result.pieces.map(\.osmNodes)))
            beyond.append(RouteMismatch.beyond(tolerance: Self.tolerance, truth: ride.route.geometry,
                                               matched: result.pieces.map { $0.geometry.map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) } }))
        }
        return (mean(rmfs), mean(beyond))
    }

    private func note(peer: Bool) -> String {
        let peerPart = peer
            ? "leuvenmapmatching on the first \(peerRides) of those rides per σ (1.5–3 km, not 1-hour rides: it takes seconds per ride); peer_match_ms per ride"
            : "leuvenmapmatching not run (WAYPOINT_PEERS_PYTHON unset or \(Self.script) not found)"
        return "match_ms: \(hourRides) 1-hour rides at 1 Hz per city, σ 10 m; match_rmf: mean over \(rmfRides) Krems rides of 1.5–3 km "
            + "at 1 Hz per σ, accuracy reported = σ, speed and course reported (0.5 m/s of velocity noise per axis; the peer reads positions only), "
            + "along the bike profile's routes; match_shortest_rmf: the same draws along the shortest routes; *_beyond_10m: length of either line "
            + "farther than 10 m from the other, over the true length; \(peerPart)"
    }

    /// A router over the extract `file`, built without a cache.
    private func router(_ file: String) throws -> RoadRouter {
        let path = dataDirectory.appendingPathComponent(file).path
        guard FileManager.default.fileExists(atPath: path) else { throw TripsBenchError("\(path) not found (give --data-dir)") }
        return RoadRouter(network: try RoadNetworkLoader.load(extracts: [path], cacheDirectory: nil))
    }

    /// Times matching `hourRides` 1-hour rides at σ 10 m, one at a time, after one warm-up ride.
    private func timeHourRides(_ router: RoadRouter, city: String) -> Latencies {
        let simulator = RideSimulator(router: router), matcher = MapMatcher(router: router)
        var latencies = Latencies()
        let clock = ContinuousClock()
        var fixes = 0
        for index in 0...hourRides {
            guard var ride = simulator.longRide(duration: 3_600, seed: seed &+ UInt64(index) &* 7_919) else { continue }
            ride.observations = Array(ride.observations.prefix(3_600))
            fixes += index > 0 ? ride.observations.count : 0
            let elapsed = clock.measure { _ = matcher.match(ride.observations) }
            if index > 0 { latencies.record(elapsed) }
        }
        logger.info("\(city): matching 1-hour rides (\(fixes / max(hourRides, 1)) fixes on average): \(latencies)")
        return latencies
    }

    private func set(_ figures: inout SigmaFigures, _ sigma: Double, _ value: Double) {
        let rounded = (value * 10_000).rounded() / 10_000
        switch sigma {
        case 5: figures.sigma5 = rounded
        case 10: figures.sigma10 = rounded
        default: figures.sigma20 = rounded
        }
    }

    private func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }

    /// `scripts/lib/peers/leuven_match.py` under the working directory or one of its parents, or under the package
    /// root this file was compiled from.
    static func locateScript() -> String? {
        var candidates: [URL] = []
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent(script))
            directory.deleteLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(script))
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }?.path
    }
}

/// Why `waypoint-bench trips` could not run.
struct TripsBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
