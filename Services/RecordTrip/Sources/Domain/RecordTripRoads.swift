import RoadNetwork

/// The road network and what the service derives from it once: the map matcher (its router builds the snapping index,
/// the weights and the connected pieces — seconds of work on a big extract) and the OSM node positions obstacles are
/// placed by. Built once per process and shared: the composition root builds it at start; tests build one for all.
public struct RecordTripRoads: Sendable {
    /// The loaded network.
    public let network: LoadedRoadNetwork
    /// The matcher over it.
    public let matcher: MapMatcher
    /// Its OSM nodes' positions.
    public let nodes: OSMNodeLocator

    /// Derives the matcher and the node positions from `network`.
    public init(network: LoadedRoadNetwork) {
        self.network = network
        matcher = MapMatcher(router: RoadRouter(network: network))
        nodes = OSMNodeLocator(graph: network.graph)
    }
}
