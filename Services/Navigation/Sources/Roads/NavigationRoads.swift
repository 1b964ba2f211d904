import RoadNetwork

/// The road network and what the service derives from it once: the router (snapping, landmarks, alternatives) and the
/// guide that turns routes into steps. Read-only for the life of the process and shared by every request; the
/// community layer changes weights only (``CommunityOverlay``). Tests build one for all services they start.
public struct NavigationRoads: Sendable {
    /// The loaded network.
    public let network: LoadedRoadNetwork
    /// The router over it (bike profile).
    public let router: RoadRouter
    /// Steps of routes on it.
    public let guide: RouteGuide

    /// Derives the router and the guide from `network`.
    public init(network: LoadedRoadNetwork) {
        self.network = network
        router = RoadRouter(network: network)
        guide = RouteGuide(graph: network.graph)
    }

    /// The graph.
    public var graph: RoadGraph { network.graph }
}
