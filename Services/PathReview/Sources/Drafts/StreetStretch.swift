import Geo
import RoadNetwork

/// Stretches of one street: the shortest way along its own edges (in either direction — a path is a physical thing;
/// one-way rules are the router's business) between two of its vertices, and its two far ends.
struct StreetStretch {
    let graph: RoadGraph
    let street: StreetIndex.Street

    /// The street's vertices.
    var vertices: Set<Int> {
        Set(street.edges.flatMap { [Int(graph.edgeSources[$0]), Int(graph.edgeTargets[$0])] })
    }

    /// Its two far ends: the vertex farthest (great circle) from its first vertex, and the one farthest from that
    /// (a double sweep; exact on a chain, a good pair on a branching street).
    var ends: (Int, Int)? {
        let all = vertices.sorted()
        guard let first = all.first else { return nil }
        let a = all.max { distance(first, $0) < distance(first, $1) }!
        let b = all.max { distance(a, $0) < distance(a, $1) }!
        return (a, b)
    }

    /// The arcs from `source` to `target` along the street's edges (Dijkstra on length), `nil` when they do not
    /// connect; empty when they are the same vertex.
    func arcs(from source: Int, to target: Int) -> [(edge: Int, reversed: Bool)]? {
        var adjacency: [Int: [(edge: Int, to: Int, reversed: Bool)]] = [:]
        for edge in street.edges {
            let (s, t) = (Int(graph.edgeSources[edge]), Int(graph.edgeTargets[edge]))
            adjacency[s, default: []].append((edge, t, false))
            adjacency[t, default: []].append((edge, s, true))
        }
        var best: [Int: Double] = [source: 0]
        var previous: [Int: (vertex: Int, edge: Int, reversed: Bool)] = [:]
        var open: Set<Int> = [source]
        while let vertex = open.min(by: { best[$0]! < best[$1]! }) {
            open.remove(vertex)
            if vertex == target { break }
            for arc in adjacency[vertex] ?? [] {
                let cost = best[vertex]! + graph.edgeLengths[arc.edge]
                if cost < best[arc.to] ?? .infinity {
                    best[arc.to] = cost
                    previous[arc.to] = (vertex, arc.edge, arc.reversed)
                    open.insert(arc.to)
                }
            }
        }
        guard best[target] != nil else { return nil }
        var arcs: [(edge: Int, reversed: Bool)] = []
        var vertex = target
        while vertex != source, let step = previous[vertex] {
            arcs.append((step.edge, step.reversed))
            vertex = step.vertex
        }
        return arcs.reversed()
    }

    /// The street's vertex nearest along its edges to `point`: of the street edge nearest to it (within `radius`
    /// metres), the end nearer along the edge; `nil` when no edge of the street is that near.
    func vertex(near point: RoadPoint, radius: Double, snaps: SnapIndex) -> Int? {
        let edges = Set(street.edges)
        let candidates = snaps.candidates(latitude: point.latitude, longitude: point.longitude, radius: radius, limit: 256)
        guard let snap = candidates.filter({ edges.contains($0.edge) }).min(by: { $0.distance < $1.distance }) else { return nil }
        let nearSource = snap.offset <= graph.edgeLengths[snap.edge] / 2
        return Int(nearSource ? graph.edgeSources[snap.edge] : graph.edgeTargets[snap.edge])
    }

    private func distance(_ a: Int, _ b: Int) -> Double {
        RoadPoint(latitude: graph.vertexLatitudes[a], longitude: graph.vertexLongitudes[a])
            .metres(to: RoadPoint(latitude: graph.vertexLatitudes[b], longitude: graph.vertexLongitudes[b]))
    }
}
