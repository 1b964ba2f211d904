import RoadNetwork

/// The road network and what the service derives from it once: the router (its snapping index, weights and connected
/// pieces — what drafts are joined and snapped with) and the street catalogue. Built once per process and shared: the
/// composition root builds it at start; tests build one for all.
public struct PathReviewRoads: Sendable {
    /// The loaded network.
    public let network: LoadedRoadNetwork
    /// The router over it (bike profile).
    public let router: RoadRouter
    /// Its streets.
    public let streets: StreetCatalog

    /// Derives the router and the street catalogue from `network`.
    public init(network: LoadedRoadNetwork) {
        self.network = network
        router = RoadRouter(network: network)
        streets = StreetCatalog(index: StreetIndex(graph: network.graph), snaps: router.snapIndex)
    }
}
