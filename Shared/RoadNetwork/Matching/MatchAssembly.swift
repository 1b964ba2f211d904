/// Turns the Viterbi path into a ``MapMatchResult``: each piece's stretches of edges (the chosen transitions' routes
/// searched again), their OSM nodes and geometry, every fix's state, position and distance, and the confidence.
struct MatchAssembly {
    let lattice: MatchLattice
    let fixes: [MatchObservation]
    let transitions: MatchTransitions

    var graph: RoadGraph { transitions.graph }

    /// The result for `path`.
    func result(_ path: MatchViterbi.Path) -> MapMatchResult {
        var fixMatches = [MapMatchResult.FixMatch](repeating: .init(state: .unmatched, position: nil, distance: nil, piece: nil),
                                                   count: fixes.count)
        var pieces: [MapMatchResult.Piece] = []
        var travels: [[MatchedTravel]] = []
        var offsets = [Double](repeating: 0, count: lattice.stepCount)
        for steps in path.pieces {
            let (piece, shift) = refinedEnds(stretches(steps, chosen: path.chosen, offsets: &offsets), steps: steps, chosen: path.chosen,
                                             offsets: offsets)
            let length = piece.reduce(0) { $0 + $1.length }
            var nodes: [Int64] = [], geometry: [Coordinate2D] = []
            for travel in piece { graph.append(travel, nodes: &nodes, geometry: &geometry) }
            for step in steps where path.chosen[step] >= 0 {
                offsets[step] -= shift
                let state = lattice.states[path.chosen[step]]
                var position = Coordinate2D(latitude: state.latitude, longitude: state.longitude), distance = state.distance
                if offsets[step] < 0 || offsets[step] > length {
                    // Before the refined start or past the refined end: placed at that end of the route.
                    position = point(at: offsets[step], along: piece)
                    let fix = fixes[lattice.observations[step]]
                    distance = RoadGraphBuilder.distance((fix.latitude, fix.longitude), (position.latitude, position.longitude))
                }
                fixMatches[lattice.observations[step]] = .init(state: .matched, position: position, distance: distance, piece: pieces.count)
            }
            pieces.append(.init(osmNodes: nodes, geometry: geometry, length: length,
                                firstObservation: lattice.observations[steps.lowerBound], lastObservation: lattice.observations[steps.upperBound]))
            travels.append(piece)
        }
        interpolate(&fixMatches, pieces: &pieces, travels: travels, offsets: offsets)
        return MapMatchResult(pieces: pieces, fixes: fixMatches, confidence: confidence(fixMatches))
    }

    /// How the rider got from one state to the next.
    private enum Move {
        /// Further along the same edge (or back within the tolerance: standing still).
        case along
        /// Through vertices, along these arcs.
        case route([Int32])
    }

    /// The stretches of edges a piece rides, and each step's metres along them (into `offsets`). A state behind the
    /// position reached on the same edge (a backtrack within tolerance) does not move the rider back.
    private func stretches(_ steps: ClosedRange<Int>, chosen: [Int], offsets: inout [Double]) -> [MatchedTravel] {
        var current = lattice.states[chosen[steps.lowerBound]]
        var travels = [MatchedTravel(edge: current.edge, reversed: current.reversed, from: current.position, to: current.position)]
        var ridden = 0.0
        offsets[steps.lowerBound] = 0
        var previous = steps.lowerBound
        for step in steps.dropFirst() where chosen[step] >= 0 {
            let b = lattice.states[chosen[step]]
            let gap = lattice.gap(from: previous, to: step, fixes: fixes, rules: transitions.rules)
            previous = step
            let last = travels.count - 1
            switch move(current, b, gap) {
            case .along?:
                if b.position > current.position {
                    ridden += b.position - current.position
                    (travels[last].to, current.position) = (b.position, b.position)
                }
            case .route(let arcs)?:
                ridden += graph.edgeLengths[current.edge] - current.position + b.position
                travels[last].to = graph.edgeLengths[current.edge]
                for arc in arcs {
                    let edge = Int(arc >> 1)
                    travels.append(MatchedTravel(edge: edge, reversed: arc & 1 == 1, from: 0, to: graph.edgeLengths[edge]))
                    ridden += graph.edgeLengths[edge]
                }
                travels.append(MatchedTravel(edge: b.edge, reversed: b.reversed, from: 0, to: b.position))
                current = b
            case nil:  // not reached: the Viterbi step joined the two states one way or the other
                travels.append(MatchedTravel(edge: b.edge, reversed: b.reversed, from: b.position, to: b.position))
                current = b
            }
            offsets[step] = ridden
        }
        // A stretch of no length at an edge's end (a fix on a junction) would add that edge's last segment.
        let moving = travels.filter { $0.length > 0 }
        return moving.isEmpty ? [travels[0]] : moving
    }

    /// The cheapest way from `a` to `b` across `gap` under the Viterbi step's costs, the fixes between them
    /// included as ``MatchTransitions/fill(_:from:to:gap:)`` scores them (ties: along); `nil` when there is none.
    private func move(_ a: MatchState, _ b: MatchState, _ gap: MatchGap) -> Move? {
        var routeCost = Double.infinity, arcs: [Int32] = []
        let start = MatchTransitions.startVertex(graph, b)
        let fixes = transitions.betweenFixes(gap), weight = transitions.rules.interpolatedEvidence
        if let middle = transitions.routes(from: MatchTransitions.endVertex(graph, a), to: [start], bound: gap.bound, between: fixes)[0] {
            routeCost = transitions.cost(transitions.joined(a, middle, b), gap)
            if let fixes, routeCost.isFinite {
                routeCost += weight * fixes.cost(fixes.squaredDistances(along: transitions.statePart(a, after: true)), middle.between,
                                                 fixes.squaredDistances(along: transitions.statePart(b, after: false)))
            }
            arcs = transitions.tree.arcs(graph, to: start, backwards: false).arcs
        }
        var along = transitions.direct(a, b, tolerance: gap.backtrack).map { transitions.cost($0, gap) } ?? .infinity
        if let fixes, along.isFinite { along += weight * fixes.cost(fixes.squaredDistances(along: transitions.directPart(a, b))) }
        let best = min(along, routeCost)
        guard best.isFinite else { return nil }
        return along == best ? .along : .route(arcs)
    }

    /// Places every interpolated fix on its anchor step's piece by time, between the anchor's position and the next
    /// step's (the anchor's own position when the piece ends there).
    private func interpolate(_ fixMatches: inout [MapMatchResult.FixMatch], pieces: inout [MapMatchResult.Piece],
                             travels: [[MatchedTravel]], offsets: [Double]) {
        for (number, anchor) in lattice.anchors.enumerated() where anchor >= 0 {
            guard let piece = fixMatches[lattice.observations[anchor]].piece else { continue }
            var offset = offsets[anchor]
            let next = anchor + 1
            if next < lattice.stepCount, fixMatches[lattice.observations[next]].piece == piece {
                let t0 = fixes[lattice.observations[anchor]].time, t1 = fixes[lattice.observations[next]].time
                let share = t1 > t0 ? min(max((fixes[number].time - t0) / (t1 - t0), 0), 1) : 0
                offset += (offsets[next] - offsets[anchor]) * share
            }
            let position = point(at: offset, along: travels[piece])
            let distance = RoadGraphBuilder.distance((fixes[number].latitude, fixes[number].longitude), (position.latitude, position.longitude))
            fixMatches[number] = .init(state: .interpolated, position: position, distance: distance, piece: piece)
            pieces[piece].firstObservation = min(pieces[piece].firstObservation, number)
            pieces[piece].lastObservation = max(pieces[piece].lastObservation, number)
        }
    }

    /// The point `offset` metres along a piece's stretches (a piece has at least one).
    private func point(at offset: Double, along travels: [MatchedTravel]) -> Coordinate2D {
        var before = 0.0
        for (index, travel) in travels.enumerated() {
            if offset <= before + travel.length || index == travels.count - 1 {
                let position = min(travel.from + max(offset - before, 0), max(travel.to, travel.from))
                return graph.point(at: position, on: graph.travelShape(of: travel.edge, reversed: travel.reversed))
            }
            before += travel.length
        }
        return Coordinate2D(latitude: 0, longitude: 0)  // not reached: every piece has a stretch
    }

    /// A fix counts as well placed within this many σ of its position: 95 % of a 2-D Gaussian's fixes are.
    static let wellPlacedSigmas = 2.45

    /// The share of observations the route explains (matched or interpolated) × the share of matched fixes that lie
    /// within ``wellPlacedSigmas`` σ of their position; 0 without a matched fix.
    private func confidence(_ fixMatches: [MapMatchResult.FixMatch]) -> Double {
        var explained = 0, matched = 0, wellPlaced = 0
        for (number, fix) in fixMatches.enumerated() where fix.state != .unmatched {
            explained += 1
            guard fix.state == .matched else { continue }
            matched += 1
            let sigma = transitions.rules.sigma(accuracy: fixes[number].accuracy)
            if let distance = fix.distance, distance <= Self.wellPlacedSigmas * sigma { wellPlaced += 1 }
        }
        guard matched > 0 else { return 0 }
        return Double(explained) / Double(fixMatches.count) * Double(wellPlaced) / Double(matched)
    }
}
