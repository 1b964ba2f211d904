/// Which pieces of the graph a bicycle can ride from into the main network and be ridden into from it, for snapping:
/// a route's origin goes onto an edge from which the main network can be reached, its destination onto one the main
/// network reaches — not onto a one-way stub, a private drive or an isolated footway the nearest edge may be
/// (OSRM's "small components" rule, on strongly connected components and with reachability between them, because
/// a one-way street traps a bicycle as surely as a missing street does).
///
/// The pieces are the strongly connected components of the arcs the profile allows (``RoadGraph/strongComponents()``),
/// numbered by Tarjan's algorithm in reverse topological order of the condensation: an arc between two pieces always
/// leads to the lower number. So "reaches a main piece" is one pass in increasing order, "is reached from one" one
/// pass in decreasing order, and afterwards each is a flag looked up per vertex in O(1).
public struct RoadComponents: Sendable {
    /// The component of every vertex.
    let componentOfVertex: [Int32]
    /// Bytes of the arrays.
    var memoryBytes: Int { (componentOfVertex.count + successorStarts.count + successors.count) * 4 + sizes.count * 8 + flags.count }
    /// Vertices per component.
    public let sizes: [Int]
    /// The condensation: the components the arcs of component `c` lead to are
    /// `successors[successorStarts[c]..<successorStarts[c + 1]]`, each once, all numbered below `c`.
    let successorStarts: [Int32]
    let successors: [Int32]
    /// Per component: ``Flag`` bits.
    let flags: [UInt8]
    /// The smallest size of a main component: ``mainComponentVertices``, or the largest component's size when the whole
    /// graph is smaller.
    public let mainMinimum: Int

    /// Components with at least this many vertices are main ones (so is the largest, whatever its size). OSRM's default
    /// is 1,000 OSM nodes; a vertex here is an intersection or a dead end (shape points are not vertices), several OSM
    /// nodes apart on city streets, so 100 vertices is a piece of the order of OSRM's. Disjoint extracts loaded together
    /// each have their own main component.
    public static let mainComponentVertices = 100

    enum Flag {
        static let main: UInt8 = 1
        static let reachesMain: UInt8 = 2
        static let reachedFromMain: UInt8 = 4
    }

    /// The components of `graph`, their condensation and their flags (linear in vertices + arcs).
    public init(graph: RoadGraph) {
        let (componentOfVertex, sizes) = graph.strongComponents()
        let (starts, successors) = Self.condensation(graph, componentOfVertex, count: sizes.count)
        let mainMinimum = min(Self.mainComponentVertices, sizes.max() ?? 0)
        self.componentOfVertex = componentOfVertex
        self.sizes = sizes
        self.mainMinimum = mainMinimum
        successorStarts = starts
        self.successors = successors
        flags = Self.flags(sizes: sizes, mainMinimum: mainMinimum, starts: starts, successors: successors)
    }

    /// Each component's flags: main; reaches main (it is main, or a successor — numbered lower, so already decided —
    /// reaches main); reached from main (main, or a predecessor — numbered higher — is reached).
    private static func flags(sizes: [Int], mainMinimum: Int, starts: [Int32], successors: [Int32]) -> [UInt8] {
        var marks: [UInt8] = sizes.map { $0 >= mainMinimum ? Flag.main | Flag.reachesMain : 0 }
        for component in marks.indices where marks[component] & Flag.reachesMain == 0 {
            if range(starts, component).contains(where: { marks[Int(successors[$0])] & Flag.reachesMain != 0 }) {
                marks[component] |= Flag.reachesMain
            }
        }
        for component in marks.indices.reversed() {
            if marks[component] & Flag.main != 0 { marks[component] |= Flag.reachedFromMain }
            guard marks[component] & Flag.reachedFromMain != 0 else { continue }
            for slot in range(starts, component) { marks[Int(successors[slot])] |= Flag.reachedFromMain }
        }
        return marks
    }

    /// Number of components.
    public var count: Int { sizes.count }

    /// The component `vertex` lies in.
    public func component(ofVertex vertex: Int) -> Int { Int(componentOfVertex[vertex]) }

    /// Whether `component` is a main one (at least ``mainMinimum`` vertices).
    public func isMain(component: Int) -> Bool { flags[component] & Flag.main != 0 }

    /// Whether a bicycle can ride from `vertex` into a main component (one it lies in counts).
    public func reachesMain(vertex: Int) -> Bool { flags[Int(componentOfVertex[vertex])] & Flag.reachesMain != 0 }

    /// Whether a bicycle can ride from a main component to `vertex`.
    public func isReachedFromMain(vertex: Int) -> Bool { flags[Int(componentOfVertex[vertex])] & Flag.reachedFromMain != 0 }

    /// Whether some vertex of `sources` reaches some vertex of `targets`: a depth-first search over the condensation
    /// that never enters a component numbered below the lowest target's (no arc leads back up). Used once per leg, and
    /// only when a leg's nearest edges fail the main-network rule.
    public func reaches(from sources: [Int], to targets: [Int]) -> Bool {
        let goals = Set(targets.map { componentOfVertex[$0] })
        guard let lowest = goals.min() else { return false }
        var stack = sources.map { componentOfVertex[$0] }.filter { $0 >= lowest }
        var seen = Set(stack)
        while let component = stack.popLast() {
            if goals.contains(component) { return true }
            for slot in Self.range(successorStarts, Int(component)) {
                let next = successors[slot]
                if next >= lowest, seen.insert(next).inserted { stack.append(next) }
            }
        }
        return false
    }

    private static func range(_ starts: [Int32], _ component: Int) -> Range<Int> {
        Int(starts[component])..<Int(starts[component + 1])
    }

    /// The arcs between components, as compressed rows without repeats.
    private static func condensation(_ graph: RoadGraph, _ component: [Int32], count: Int) -> ([Int32], [Int32]) {
        var pairs: [Int64] = []
        for vertex in 0..<graph.vertexCount {
            graph.forEachArc(from: vertex) { arc in
                let from = component[arc.from], to = component[arc.to]
                if from != to { pairs.append(Int64(from) << 32 | Int64(to)) }
            }
        }
        pairs.sort()
        var starts = [Int32](repeating: 0, count: count + 1), successors: [Int32] = []
        var previous: Int64 = -1
        for pair in pairs where pair != previous {
            previous = pair
            starts[Int(pair >> 32) + 1] += 1
            successors.append(Int32(truncatingIfNeeded: pair))
        }
        for index in 0..<count { starts[index + 1] += starts[index] }
        return (starts, successors)
    }
}
