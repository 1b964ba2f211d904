import Foundation
import Logging
import RoadNetwork
import ServiceTesting

/// The measurements of one synthetic grid city (``GridCity``): the bench writes it as an OSM XML file in a temporary
/// directory, imports it through the normal reader and graph builder, builds the router, and times routes between
/// random points of the grid.
struct GridBench {
    /// The key in the JSON line (`grid_10k`).
    var name: String
    /// Nodes wanted (the grid is the nearest square).
    var nodes: Int
    /// Route pairs.
    var pairs: Int
    var seed: UInt64
    var logger: Logger

    /// Runs every measurement; `targets` collects the verdicts to print at the end.
    func run(targets: inout [String]) throws -> GridFigures {
        let grid = GridCity(nodes: nodes, seed: seed)
        let directory = TemporaryDirectory("waypoint-bench-roads-\(name)")
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("\(name).osm").path
        let clock = ContinuousClock()
        let start = clock.now
        let summary = try grid.write(to: path)
        let classes = summary.waysByClass.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        logger.info("""
            \(name): \(grid.side) × \(grid.side) = \(summary.nodes) nodes, \(summary.ways) ways (\(classes)), \(summary.missingBlocks) \
            blocks left out; \(summary.bytes / 1_048_576) MiB of OSM XML written in \(String(format: "%.2f", (clock.now - start).seconds)) s
            """)
        let network = try ServedNetwork.measure(name: name, logger: logger, withStreets: false) {
            let built = try RoadGraphBuilder().build([path])
            try? FileManager.default.removeItem(atPath: path)  // the extract is not needed any more; free the disk early
            return built.graph
        }
        let drawn = RoutePairs.uniform(in: grid, count: pairs, seed: seed &+ 3)
        let routes = RouteTimings.measure(network.router, pairs: drawn, alternatives: 0)
        logger.info("\(name) best route (\(drawn.count) pairs anywhere in the grid): \(routes)")
        let figures = GridFigures(
            nodes: network.router.graph.vertexCount, edges: network.router.graph.edgeCount,
            buildSeconds: (network.graphSeconds + network.routerSeconds).rounded(places: 2),
            importSeconds: network.graphSeconds.rounded(places: 2), routerSeconds: network.routerSeconds.rounded(places: 2),
            memoryMebibytes: network.memoryMebibytes.rounded(places: 1), route: routes.routed, pairs: drawn.count,
            noRoute: routes.noRoute.milliseconds.count)
        targets += RoadTargets.verdicts(grid: name, figures)
        return figures
    }
}
