/// A via-vertex route examined as an alternative.
private struct Candidate {
    var pieces: [RoutePiece]
    var weight: Double
    var plateau: Double
    var plateauVertices: [Int]
    /// The graph vertices along the route, the weight of the arc after each, and where the via vertex is.
    var vertices: [Int]
    var arcWeights: [Double]
    var viaIndex: Int
}

extension RoadRouter {
    /// The best route of a leg and up to `count` alternatives that pass ``alternativeRules``, better first.
    ///
    /// A forward A* tree from the origin and a backward one from the destination are grown until their keys pass the
    /// stretch bound; every vertex settled by both with d(s, v) + d(v, t) within the bound is a via candidate, whose
    /// route is the tree path s → v → t. Candidates that surely share too much with the best route are skipped
    /// unexamined; the others are examined by weight, then vertex.
    func alternativeLegs(_ ends: LegEnds, weights: RoadWeights, count: Int) -> [[RoutePiece]] {
        trees.withTree { forward in
            trees.withTree { backward in
                alternativeLegs(ends, weights: weights, count: count, forward: forward, backward: backward)
            }
        }
    }

    private func alternativeLegs(_ ends: LegEnds, weights: RoadWeights, count: Int, forward: SearchTree, backward: SearchTree) -> [[RoutePiece]] {
        let rules = alternativeRules
        guard let grown = growTrees(ends, weights: weights, forward: forward, backward: backward) else {
            return ends.direct.map { [[$0]] } ?? []
        }
        let (best, meeting) = (grown.best, grown.meeting)
        let bestPieces = pieces(forward: forward, via: meeting.vertex, target: meeting.target, ends: ends, weights: weights)
        var accepted = [bestPieces]
        var acceptedEdges = [EdgeWeights(bestPieces)]  // each accepted route's weight per directed edge, built once
        var covered = Set<Int>()
        var examined = 0
        for via in viaCandidates(forward, backward, best: best, meetingVertex: meeting.vertex) where !covered.contains(via) {
            guard accepted.count <= count, examined < rules.maximumCandidates else { break }
            examined += 1
            guard let candidate = candidate(via: via, forward: forward, backward: backward, ends: ends, weights: weights) else { continue }
            covered.formUnion(candidate.plateauVertices)
            guard acceptedEdges.allSatisfy({ $0.shared(with: candidate.pieces) <= rules.maximumSharing * $0.total }),
                  candidate.plateau >= rules.minimumPlateau * best
                    || locallyOptimal(candidate, window: rules.minimumPlateau * best, weights: weights)
            else { continue }
            accepted.append(candidate.pieces)
            acceptedEdges.append(EdgeWeights(candidate.pieces))
        }
        return accepted
    }

    /// Grows both trees to the stretch bound; the best weight and where the best route meets the destination, or
    /// `nil` when no route passes through the graph (the direct piece, if any, is then the only route).
    ///
    /// The trees stop one landmark unit past the bound (``RoadLandmarks/maximumUnit``; with a hierarchy its slack,
    /// ``consistencySlack(upTo:)``): the potentials are consistent only up to that, and with the margin every vertex whose route weight is within the bound is settled in
    /// both trees with its exact distance, so candidates, plateaus and shared weights read exact trees.
    private func growTrees(_ ends: LegEnds, weights: RoadWeights, forward: SearchTree, backward: SearchTree)
        -> (best: Double, meeting: (vertex: Int, target: Seed))? {
        let stretch = alternativeRules.maximumStretch
        var best = ends.direct?.weight ?? .infinity
        var meeting: (vertex: Int, target: Seed)?
        let active = hierarchy != nil ? nil : ends.origins.first.flatMap { origin in
            ends.targets.first.map { landmarks.activeLandmarks(from: origin.vertex, to: $0.vertex, count: RoadLandmarks.activeCount) }
        }
        forward.grow(graph, weights, backwards: false, seeds: ends.origins.map { ($0.vertex, $0.weight) },
                     potential: potential(forward, towards: ends.targets, active: active, scale: weights.overlay.boundScale),
                     stop: { $0 > best * stretch + consistencySlack(upTo: best * stretch) },
                     settle: { vertex, weight in
                         for target in ends.targets where target.vertex == vertex && weight + target.weight < best {
                             best = weight + target.weight
                             meeting = (vertex, target)
                         }
                     })
        guard let meeting else { return nil }
        // The backward tree's potential is the forward tree's own distance, and it enters only vertices the forward
        // tree settled. A vertex w within the bound is settled forwards with its exact d(s, w), and so is every vertex
        // on its shortest path to the destination (d(s, x) + d(x, t) ≤ d(s, w) + d(w, t) for x on it); exact distances
        // are a consistent potential along that path, so w is settled backwards with its exact d(w, t) and key
        // d(s, w) + d(w, t) — the backward tree covers the stretch ellipse itself and computes no landmark bound.
        // Outside the bound nothing it holds is read.
        backward.grow(graph, weights, backwards: true, seeds: ends.targets.map { ($0.vertex, $0.weight) },
                      potential: { forward.isSettled($0) ? forward.distance($0) : .infinity },
                      stop: { $0 > best * stretch + consistencySlack(upTo: best * stretch) })
        return (best, meeting)
    }

    /// Via vertices worth examining, cheapest first: settled by both trees, within the stretch bound, and not sharing
    /// more than allowed with the best route as the trees tell it — a tree path leaves the best route once, at the last
    /// best-route vertex on it, so the shared part is the tree weight there (one pass over each tree, in settle order).
    private func viaCandidates(_ forward: SearchTree, _ backward: SearchTree, best: Double, meetingVertex: Int) -> [Int] {
        var onBest = [meetingVertex]
        while forward.parent(onBest.last!) >= 0 { onBest.append(SearchTree.otherEnd(graph, arc: forward.parent(onBest.last!), from: onBest.last!)) }
        // Each tree's scratch: the tree weight where a vertex's tree path leaves the best route. A parent is settled
        // before its child, so its value is written first (a vertex reopened and not settled again may read a stale
        // one: it is not exact, so it is never a candidate). Best-route vertices are marked in the scratch itself while
        // the passes run (−1 − weight; weights are ≥ 0), not looked up in a set per vertex; the marks are undone before
        // returning, so no scratch value is negative between searches.
        let trees = [forward, backward]
        for tree in trees {
            tree.prepareScratch()
            for v in onBest { tree.scratch[v] = -1 - tree.distance(v) }
            for settled in tree.order where tree.scratch[Int(settled)] >= 0 {
                let v = Int(settled), parent = tree.parent(v)
                tree.scratch[v] = parent >= 0 ? Self.unmarked(tree.scratch[SearchTree.otherEnd(graph, arc: parent, from: v)]) : 0
            }
        }
        defer { for tree in trees { for v in onBest { tree.scratch[v] = tree.distance(v) } } }
        let limit = best * alternativeRules.maximumStretch, sharing = best * alternativeRules.maximumSharing
        var vias: [(weight: Double, vertex: Int)] = []
        for settled in forward.order {
            let v = Int(settled)
            guard forward.isSettled(v), backward.isSettled(v), forward.scratch[v] >= 0, forward.scratch[v] + backward.scratch[v] <= sharing else { continue }
            let weight: Double = forward.distance(v) + backward.distance(v)
            if weight <= limit { vias.append((weight, v)) }
        }
        vias.sort { ($0.weight, $0.vertex) < ($1.weight, $1.vertex) }
        var unique: [Int] = []  // a reopened vertex is in the settle order twice
        for via in vias where unique.last != via.vertex { unique.append(via.vertex) }
        return unique
    }

    /// A scratch value with a best-route mark undone.
    private static func unmarked(_ value: Double) -> Double { value < 0 ? -1 - value : value }

    /// The route through `via` along both trees, with its plateau; `nil` when it visits a vertex twice.
    private func candidate(via: Int, forward: SearchTree, backward: SearchTree, ends: LegEnds, weights: RoadWeights) -> Candidate? {
        let (prefix, originVertex) = forward.arcs(graph, to: via, backwards: false)
        let (suffix, targetVertex) = backward.arcs(graph, to: via, backwards: true)
        guard let origin = ends.origins.first(where: { $0.vertex == originVertex }),
              let target = ends.targets.first(where: { $0.vertex == targetVertex }) else { return nil }
        // Vertices along the route, and the plateau: prefix arcs that are also backward-tree arcs, suffix arcs that are
        // also forward-tree arcs, contiguous around the via vertex.
        var prefixVertices = [via]
        for arc in prefix.reversed() { prefixVertices.append(SearchTree.otherEnd(graph, arc: arc, from: prefixVertices.last!)) }
        var suffixVertices = [via]
        for arc in suffix { suffixVertices.append(SearchTree.otherEnd(graph, arc: arc, from: suffixVertices.last!)) }
        var seen = Set<Int>(minimumCapacity: prefixVertices.count + suffixVertices.count)
        for vertex in prefixVertices where !seen.insert(vertex).inserted { return nil }
        for vertex in suffixVertices.dropFirst() where !seen.insert(vertex).inserted { return nil }
        // Each arc's piece once: the plateau reads their weights (prefix arcs are pieces 0..<prefix.count).
        var arcs: [RoutePiece] = []
        arcs.reserveCapacity(prefix.count + suffix.count)
        for arc in prefix { arcs.append(RoutePiece(graph: graph, weights: weights, arc: arc)) }
        for arc in suffix { arcs.append(RoutePiece(graph: graph, weights: weights, arc: arc)) }
        var plateau = 0.0, plateauVertices = [via]
        for (index, arc) in prefix.reversed().enumerated() {
            let from = prefixVertices[index + 1]
            guard backward.isSettled(from), backward.parent(from) == arc else { break }
            plateau += arcs[prefix.count - 1 - index].weight
            plateauVertices.append(from)
        }
        for (index, arc) in suffix.enumerated() {
            let to = suffixVertices[index + 1]
            guard forward.isSettled(to), forward.parent(to) == arc else { break }
            plateau += arcs[prefix.count + index].weight
            plateauVertices.append(to)
        }
        let pieces = [origin.piece].compactMap { $0 } + arcs + [target.piece].compactMap { $0 }
        return Candidate(pieces: pieces, weight: pieces.reduce(0) { $0 + $1.weight }, plateau: plateau, plateauVertices: plateauVertices,
                         vertices: prefixVertices.reversed() + suffixVertices.dropFirst(), arcWeights: arcs.map(\.weight),
                         viaIndex: prefix.count)
    }

    /// The T-test (Abraham et al.) at vertex granularity: x, the earliest vertex at most `window` before the via
    /// vertex, and y, the last at most `window` after it; the route between them must be a shortest path. The parts
    /// before and after the via vertex are shortest-path tree paths, so then every stretch of the route between two
    /// vertices lighter than `window` is a shortest path.
    private func locallyOptimal(_ candidate: Candidate, window: Double, weights: RoadWeights) -> Bool {
        var x = candidate.viaIndex, y = candidate.viaIndex, before = 0.0, after = 0.0
        while x > 0, before + candidate.arcWeights[x - 1] <= window { x -= 1; before += candidate.arcWeights[x] }
        while y < candidate.vertices.count - 1, after + candidate.arcWeights[y] <= window { after += candidate.arcWeights[y]; y += 1 }
        guard x < candidate.viaIndex, y > candidate.viaIndex else { return true }  // no stretch crosses the via vertex
        let along = before + after
        let target = candidate.vertices[y]
        return trees.withTree { tree in
            var shortest = Double.infinity
            let toTarget = potential(tree, towards: [Seed(vertex: target, weight: 0, piece: nil)], scale: weights.overlay.boundScale)
            tree.grow(graph, weights, backwards: false, seeds: [(candidate.vertices[x], 0)], potential: toTarget,
                      stop: { $0 >= shortest || $0 > along * (1 + 1e-12) }, settle: { vertex, weight in if vertex == target { shortest = min(shortest, weight) } })
            return shortest >= along * (1 - 1e-12)
        }
    }

}

/// A route's weight per directed edge, and its whole weight: what a candidate's shared weight is measured against.
private struct EdgeWeights {
    var byEdge: [Int: Double] = [:]
    var total = 0.0

    init(_ pieces: [RoutePiece]) {
        byEdge.reserveCapacity(pieces.count)
        for piece in pieces {
            byEdge[piece.key, default: 0] += piece.weight
            total += piece.weight
        }
    }

    /// The weight of `route` on the same edges, in the same direction, as this route (pieces of one edge: the lighter).
    func shared(with route: [RoutePiece]) -> Double {
        route.reduce(0) { total, piece in total + min(piece.weight, byEdge[piece.key] ?? 0) }
    }
}
