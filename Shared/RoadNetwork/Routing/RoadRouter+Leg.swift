/// A vertex a search starts from (or ends at), its weight from the snapped point (to it), and the piece of edge
/// between them (`nil` when the point is the vertex itself).
struct Seed {
    var vertex: Int
    var weight: Double
    var piece: RoutePiece?
}

/// Where one leg can leave its origin and reach its destination.
struct LegEnds {
    /// The origin's edge's ends reachable from the snapped point.
    var origins: [Seed]
    /// The destination's edge's ends from which the snapped point is reachable.
    var targets: [Seed]
    /// The piece straight along one edge when origin and destination share it and its direction allows.
    var direct: RoutePiece?
}

extension RoadRouter {
    /// The seeds of a leg from snap `a` to snap `b`: part-way pieces from `a` to its edge's ends and from `b`'s
    /// edge's ends to `b`, under `weights`, and the direct piece when both are on one edge.
    func legEnds(from a: SnapIndex.Snap, to b: SnapIndex.Snap, weights: RoadWeights) -> LegEnds {
        func piece(_ edge: Int, _ from: Double, _ to: Double) -> RoutePiece? {
            let weight = weights.pieceWeight(graph, edge: edge, from: from, to: to)
            return weight.isFinite ? RoutePiece(edge: edge, from: from, to: to, weight: weight) : nil
        }
        var ends = LegEnds(origins: [], targets: [], direct: nil)
        let lengthA = graph.edgeLengths[a.edge], lengthB = graph.edgeLengths[b.edge]
        let offsetA = min(a.offset, lengthA), offsetB = min(b.offset, lengthB)
        if let p = piece(a.edge, offsetA, lengthA) { ends.origins.append(Seed(vertex: Int(graph.edgeTargets[a.edge]), weight: p.weight, piece: p)) }
        if let p = piece(a.edge, offsetA, 0) { ends.origins.append(Seed(vertex: Int(graph.edgeSources[a.edge]), weight: p.weight, piece: p)) }
        if let p = piece(b.edge, 0, offsetB) { ends.targets.append(Seed(vertex: Int(graph.edgeSources[b.edge]), weight: p.weight, piece: p)) }
        if let p = piece(b.edge, lengthB, offsetB) { ends.targets.append(Seed(vertex: Int(graph.edgeTargets[b.edge]), weight: p.weight, piece: p)) }
        if a.edge == b.edge { ends.direct = piece(a.edge, offsetA, offsetB) }
        return ends
    }

    /// The minimum-weight pieces of a leg (A* from the origin's seeds towards the targets' seeds), `nil` when none,
    /// and how many vertices the search settled (its work, for tests and benchmarks).
    ///
    /// Exact although the landmark potential is only admissible: the search stops when the smallest key reaches the
    /// best weight found, and until then a vertex on a best route with its exact distance is always open with a key
    /// no larger than that route's weight.
    func bestLeg(_ ends: LegEnds, weights: RoadWeights) -> (pieces: [RoutePiece]?, settled: Int) {
        trees.withTree { tree in
            var best = ends.direct?.weight ?? .infinity
            var meeting: (vertex: Int, target: Seed)?
            tree.grow(graph, weights, backwards: false, seeds: ends.origins.map { ($0.vertex, $0.weight) },
                      potential: potential(tree, towards: ends.targets, scale: weights.overlay.boundScale), stop: { $0 >= best },
                      settle: { vertex, weight in
                          for target in ends.targets where target.vertex == vertex && weight + target.weight < best {
                              best = weight + target.weight
                              meeting = (vertex, target)
                          }
                      })
            if let meeting { return (pieces(forward: tree, via: meeting.vertex, target: meeting.target, ends: ends, weights: weights), tree.order.count) }
            return (ends.direct.map { [$0] }, tree.order.count)
        }
    }

    /// The pieces of the route through the forward tree from an origin seed to `vertex`, then `target`'s piece.
    func pieces(forward tree: SearchTree, via vertex: Int, target: Seed, ends: LegEnds, weights: RoadWeights) -> [RoutePiece] {
        let (arcs, seed) = tree.arcs(graph, to: vertex, backwards: false)
        var pieces: [RoutePiece] = []
        pieces.reserveCapacity(arcs.count + 2)
        if let start = ends.origins.first(where: { $0.vertex == seed })?.piece { pieces.append(start) }
        for arc in arcs { pieces.append(RoutePiece(graph: graph, weights: weights, arc: arc)) }  // no closure: it copied the graph
        if let end = target.piece { pieces.append(end) }
        return pieces
    }

    /// The potential of a forward search in `tree` towards `seeds`: the hierarchy's exact base distance where there
    /// is one (computed in the tree's workspace), else the landmark bound (using the landmarks `active`).
    ///
    /// Either way times `scale` (``CostOverlay/boundScale``): an overlay that discounts must not make it overestimate.
    func potential(_ tree: SearchTree, towards seeds: [Seed], active: [Int]? = nil, scale: Double) -> (Int) -> Double {
        guard let hierarchy else { return potential(towards: seeds, active: active, scale: scale) }
        let work = tree.hierarchyPotential
        work.prepare(hierarchy, seeds: seeds.map { ($0.vertex, $0.weight) }, towards: true)
        let factor = scale * (1 - HierarchyPotential.relativeSlack)
        return { vertex in factor * work.value(hierarchy, vertex) }
    }

    /// How far a potential of this router may fall short of consistency on routes of weight up to `weight`: a
    /// landmark unit, or the hierarchy's relative slack (twice: the bound at both ends of an arc).
    func consistencySlack(upTo weight: Double) -> Double {
        hierarchy == nil ? landmarks.maximumUnit * 1.001 : 2 * HierarchyPotential.relativeSlack * weight
    }

    /// A lower bound on the weight from a vertex to the nearest of `seeds` (plus its weight): the A* potential of a
    /// forward search (memoised per vertex by the tree that uses it).
    ///
    /// `scale` (``CostOverlay/boundScale``, ≤ 1) multiplies the landmark bound: an overlay that makes segments cheaper
    /// than their base weight (by at most that factor) must not make the bound overestimate. Seed weights are the
    /// pieces' own weights under the overlay and are not scaled.
    func potential(towards seeds: [Seed], active: [Int]? = nil, scale: Double = 1) -> (Int) -> Double {
        guard landmarks.count > 0 else { return { _ in 0 } }
        let landmarks = self.landmarks
        let anchors = seeds.map { (anchor: landmarks.anchor($0.vertex, active: active), weight: $0.weight) }
        return { vertex in anchors.reduce(Double.infinity) { min($0, scale * landmarks.bound(from: vertex, to: $1.anchor) + $1.weight) } }
    }

    /// The same from the nearest of `seeds` to a vertex: the potential of a backward search.
    func potential(from seeds: [Seed], active: [Int]? = nil, scale: Double = 1) -> (Int) -> Double {
        guard landmarks.count > 0 else { return { _ in 0 } }
        let landmarks = self.landmarks
        let anchors = seeds.map { (anchor: landmarks.anchor($0.vertex, active: active), weight: $0.weight) }
        return { vertex in anchors.reduce(Double.infinity) { min($0, scale * landmarks.bound(from: $1.anchor, to: vertex) + $1.weight) } }
    }
}
