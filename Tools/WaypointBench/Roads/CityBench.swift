import Foundation
import Logging
import RoadNetwork
import ServiceTesting

/// The measurements of one real city's extract (`docs/benchmarks.md`, `## roads`): import, compiled cache, memory,
/// routes with and without alternatives, snapping and street search.
struct CityBench {
    /// The key in the JSON line (`krems`).
    var name: String
    /// The extract's path.
    var extract: String
    /// Route pairs to draw (1–5 km apart).
    var pairs: Int
    /// Points to snap and prefixes to search.
    var snaps: Int
    var prefixes: Int
    var seed: UInt64
    var logger: Logger

    /// Imports timed (the median is reported) and cache loads timed.
    static let importRuns = 3
    static let cacheLoadRuns = 10

    /// Runs every measurement; `targets` collects the verdicts to print at the end.
    func run(targets: inout [String]) throws -> CityFigures {
        let importMilliseconds = try timeImports()
        let directory = TemporaryDirectory("waypoint-bench-roads-\(name)")
        defer { directory.remove() }
        let cacheLoadMilliseconds = try timeCacheLoads(directory: directory.url.path)
        let network = try ServedNetwork.measure(name: name, logger: logger, withStreets: true) {
            try RoadNetworkLoader.load(extracts: [extract], cacheDirectory: directory.url.path).graph
        }
        let router = network.router
        let drawn = RoutePairs.near(router, count: pairs, distance: 1_000...5_000, seed: seed)
        logger.info("\(name): \(drawn.pairs.count) pairs 1–5 km apart (\(drawn.draws) drawn)")
        let best = RouteTimings.measure(router, pairs: drawn.pairs, alternatives: 0)
        logger.info("\(name) best route: \(best)")
        let withAlternatives = RouteTimings.measure(router, pairs: drawn.pairs, alternatives: 2)
        logger.info("\(name) best + up to 2 alternatives: \(withAlternatives); \(withAlternatives.withAlternatives) with an alternative")
        explainNoRoutes(router, pairs: drawn.pairs, indexes: withAlternatives.noRoutePairs)
        let snap = timeSnaps(router)
        let prefix = timePrefixes(network.streets ?? StreetIndex(graph: router.graph))
        logger.info("\(name) street prefix: \(prefix)")

        let figures = CityFigures(
            importMilliseconds: importMilliseconds.rounded(places: 1), cacheLoadMilliseconds: cacheLoadMilliseconds.rounded(places: 2),
            routerMilliseconds: network.routerMilliseconds.rounded(places: 1), nodes: router.graph.vertexCount, edges: router.graph.edgeCount,
            memoryMebibytes: network.memoryMebibytes.rounded(places: 1), route: best.routed, routeAlternatives: withAlternatives.routed,
            alternativesRate: withAlternatives.alternativesRate.rounded(places: 3), pairs: drawn.pairs.count,
            noRoute: withAlternatives.noRoute.milliseconds.count, snap: MicrosecondLatencies(latencies: snap), streetPrefix: prefix)
        targets += RoadTargets.verdicts(city: name, figures)
        return figures
    }

    /// Reading and building the graph without any cache, ``importRuns`` times; the median in milliseconds.
    private func timeImports() throws -> Double {
        let clock = ContinuousClock()
        var runs: [Double] = []
        for _ in 0..<Self.importRuns {
            let start = clock.now
            let built = try RoadGraphBuilder().build([extract])
            runs.append(Self.milliseconds(clock.now - start))
            withExtendedLifetime(built) {}
        }
        logger.info("\(name) import: \(runs.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms")
        return Self.median(runs)
    }

    /// Writes the cache once (an import), then loads it ``cacheLoadRuns`` times; the median in milliseconds.
    private func timeCacheLoads(directory: String) throws -> Double {
        let first = try RoadNetworkLoader.load(extracts: [extract], cacheDirectory: directory)
        if let problem = first.cacheWriteError { throw RoadsBenchError("\(name): the cache could not be written: \(problem)") }
        let clock = ContinuousClock()
        var runs: [Double] = []
        for _ in 0..<Self.cacheLoadRuns {
            let start = clock.now
            let loaded = try RoadNetworkLoader.load(extracts: [extract], cacheDirectory: directory)
            runs.append(Self.milliseconds(clock.now - start))
            guard loaded.source == .cache else { throw RoadsBenchError("\(name): the cache was not used (\(loaded.source))") }
        }
        let file = URL(fileURLWithPath: directory).appendingPathComponent(RoadNetworkLoader.cacheFileName).path
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        logger.info("\(name) cache (\(bytes / 1_024) KiB) loads: \(runs.map { String(format: "%.2f", $0) }.joined(separator: ", ")) ms")
        return Self.median(runs)
    }

    /// Says on stderr why pairs had no route: how many have a point snapped onto a piece of the network outside its
    /// largest weakly connected part (an island the extract's border or a gap in the data cut off); the others are
    /// one-way traps or parts joined only against a one-way direction.
    private func explainNoRoutes(_ router: RoadRouter, pairs: [(RoadPoint, RoadPoint)], indexes: [Int]) {
        guard !indexes.isEmpty else { return }
        let graph = router.graph
        let (componentOf, sizes) = graph.weakComponents()
        let largest = sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0
        func onIsland(_ point: RoadPoint) -> Bool {
            guard let snap = router.snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: RoutePairs.snapRadius) else { return false }
            return componentOf[Int(graph.edgeSources[snap.edge])] != largest
        }
        let islands = indexes.filter { onIsland(pairs[$0].0) || onIsland(pairs[$0].1) }.count
        logger.info("""
            \(name): \(indexes.count) pairs without a route — \(islands) with a point snapped outside the largest connected part \
            (\(sizes[largest]) of \(graph.vertexCount) vertices, \(sizes.count) parts), \(indexes.count - islands) inside it (one-way traps)
            """)
    }

    /// Snapping points within 100 m of the streets, each timed on its own.
    private func timeSnaps(_ router: RoadRouter) -> Latencies {
        let points = RoutePairs.pointsNear(router.graph, count: snaps, within: 100, seed: seed &+ 1)
        var latencies = Latencies(resolution: 0.000_01)
        let clock = ContinuousClock()
        var misses = 0
        for point in points {
            let start = clock.now
            let snap = router.snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: RoutePairs.snapRadius)
            latencies.record(clock.now - start)
            if snap == nil { misses += 1 }
        }
        logger.info("""
            \(name) snap: \(points.count) points within 100 m of a street, \(misses) without a snap; p50 \
            \(String(format: "%.2f", latencies.percentile(0.5) * 1_000)) µs, p99 \(String(format: "%.2f", latencies.percentile(0.99) * 1_000)) µs, \
            max \(String(format: "%.2f", (latencies.milliseconds.max() ?? 0) * 1_000)) µs
            """)
        return latencies
    }

    /// Street search by prefixes of real street names (1–4 letters), 10 results, each timed on its own.
    private func timePrefixes(_ streets: StreetIndex) -> Latencies {
        let names = streets.streets.map(\.name).filter { !$0.isEmpty }
        var latencies = Latencies(resolution: 0.001)
        guard !names.isEmpty else { return latencies }
        var random = SeededGenerator(seed: seed &+ 2)
        let queries = (0..<prefixes).map { _ in
            String(names[Int.random(in: 0..<names.count, using: &random)].prefix(Int.random(in: 1...4, using: &random)))
        }
        let clock = ContinuousClock()
        var found = 0
        for query in queries {
            let start = clock.now
            found &+= streets.search(query, limit: 10).count
            latencies.record(clock.now - start)
        }
        logger.info("\(name): \(queries.count) prefixes of \(names.count) street names, \(found) results")
        return latencies
    }

    static func milliseconds(_ duration: Duration) -> Double {
        duration.seconds * 1_000
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

/// A benchmark run that cannot give honest figures (a cache that is not used, a missing extract).
struct RoadsBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
