/// Which pieces of the graph a bicycle can ride in and out of, for snapping: a point is snapped onto the network's
/// main part rather than onto a piece no route leaves or enters (a car park's aisles, a one-way exit road, a private
/// estate's paths, a street cut off by the extract's edge) — OSRM's "small components" rule, on strongly connected
/// components because one-way streets trap a bicycle as surely as a missing street does.
public struct RoadComponents: Sendable {
    /// The strongly connected component of every vertex (``RoadGraph/strongComponents()``).
    let componentOfVertex: [Int32]
    /// Vertices per component.
    public let sizes: [Int]
    /// The smallest size of a main component: ``smallComponentVertices``, or the largest component's size when the
    /// whole graph is smaller.
    let mainMinimum: Int
    private let graph: RoadGraph

    /// Components with fewer vertices than this are small (unless one is the largest of the graph). OSRM's default is
    /// 1,000 OSM nodes; a vertex here is an intersection or a dead end (shape points are not vertices), several OSM
    /// nodes apart on city streets, so 100 vertices is a piece of the order of OSRM's.
    public static let smallComponentVertices = 100

    /// The components of `graph`.
    public init(graph: RoadGraph) {
        (componentOfVertex, sizes) = graph.strongComponents()
        mainMinimum = min(Self.smallComponentVertices, sizes.max() ?? 0)
        self.graph = graph
    }

    /// The component both ends of `edge` lie in, or `nil` when they lie in different ones (the edge leads from one
    /// piece into another, one way only).
    public func component(ofEdge edge: Int) -> Int? {
        let source = componentOfVertex[Int(graph.edgeSources[edge])], target = componentOfVertex[Int(graph.edgeTargets[edge])]
        return source == target ? Int(source) : nil
    }

    /// What a snapped point is to its route: where it starts, where it ends, or a point it passes (both).
    public enum Role: Sendable, Hashable {
        case origin, destination, via
    }

    /// Whether a point on `edge` connects with a main component in its `role`: an origin reaches one (an end of the edge
    /// it may ride to lies in it), a destination is reached from one (an end it may be ridden to from lies in it), a via
    /// point both. An edge with both ends in one main component always does, whichever ways it may be ridden.
    public func isMain(edge: Int, as role: Role) -> Bool {
        let forward = graph.edgeForwardWeights[edge].isFinite, backward = graph.edgeBackwardWeights[edge].isFinite
        let source = isMain(vertex: Int(graph.edgeSources[edge])), target = isMain(vertex: Int(graph.edgeTargets[edge]))
        let leaves = (forward && target) || (backward && source)  // the point rides on into a main component
        let entered = (forward && source) || (backward && target)  // the point is reached from a main component
        switch role {
        case .origin: return leaves
        case .destination: return entered
        case .via: return leaves && entered
        }
    }

    private func isMain(vertex: Int) -> Bool { sizes[Int(componentOfVertex[vertex])] >= mainMinimum }
}
