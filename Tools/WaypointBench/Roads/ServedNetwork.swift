import Foundation
import Logging
import RoadNetwork

/// A road network as a service holds it — the graph, its ``RoadRouter`` and (for real cities) its ``StreetIndex`` —
/// with what it cost to build and what it keeps in memory.
struct ServedNetwork {
    var router: RoadRouter
    var streets: StreetIndex?
    /// Seconds to get the graph (an import or a cache load) and to build the router from it.
    var graphSeconds: Double
    var routerSeconds: Double
    /// The router's build time in milliseconds.
    var routerMilliseconds: Double { routerSeconds * 1_000 }
    /// Memory the graph, router and street index add (MiB): the growth of the heap's live bytes (``MemoryInUse``).
    var memoryMebibytes: Double

    /// Gets the graph from `graph`, builds the router (and the street index `withStreets`), and measures both.
    static func measure(name: String, logger: Logger, withStreets: Bool, graph: () throws -> RoadGraph) throws -> ServedNetwork {
        let clock = ContinuousClock()
        let before = MemoryInUse.Reading.now()
        let start = clock.now
        let loaded = try graph()
        let graphDone = clock.now
        let router = RoadRouter(graph: loaded)
        let routerDone = clock.now
        let withRouter = MemoryInUse.Reading.now()
        let streets = withStreets ? StreetIndex(graph: loaded) : nil
        let streetsDone = clock.now
        let after = withStreets ? MemoryInUse.Reading.now() : withRouter
        let network = ServedNetwork(router: router, streets: streets, graphSeconds: (graphDone - start).seconds,
                                    routerSeconds: (routerDone - graphDone).seconds, memoryMebibytes: after.mebibytes(since: before))
        var line = "\(name): \(loaded.vertexCount) nodes, \(loaded.edgeCount) edges; graph in \(format(network.graphSeconds)) s, "
        line += "router (snap index, \(router.landmarks.count) landmarks, segment locator"
        if let hierarchy = router.hierarchy {
            line += ", hierarchy of \(hierarchy.arcCount) arcs, \(format(Double(hierarchy.memoryBytes) / 1_048_576)) MiB"
        }
        line += ") in \(format(network.routerSeconds)) s"
        if let streets { line += ", street index (\(streets.streets.count) streets) in \(format((streetsDone - routerDone).seconds)) s" }
        line += "; heap +\(format(withRouter.mebibytes(since: before))) MiB with the router"
        if withStreets { line += ", +\(format(after.mebibytes(since: withRouter))) MiB for the street index" }
        line += " (graph arrays alone \(format(Double(MemoryInUse.graphArrayBytes(loaded)) / 1_048_576)) MiB"
        for (part, bytes) in router.memoryBreakdown { line += ", \(part) \(format(Double(bytes) / 1_048_576))" }
        line += ";"
        line += " RSS after malloc_trim +\(format(after.residentMebibytes - before.residentMebibytes)) MiB)"
        logger.info("\(line)")
        return network
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
