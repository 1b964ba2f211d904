import Foundation

/// The transition costs between the states of two consecutive steps: −log of Newson & Krumm's exponential on
/// |route distance − great-circle distance| / β, plus the way-preference cost of the route (``MapMatchRules``).
///
/// Route distances come from one bounded Dijkstra search per distinct vertex the earlier states ride towards, on the
/// matching costs (metres × the preference factor), stopped as soon as every vertex the later states start from is
/// settled or the bound is passed; the route's length in metres is read back along the search tree.
struct MatchTransitions {
    let graph: RoadGraph
    /// Weight per edge and direction: metres × (pmax / p)^κ.
    let costs: RoadWeights
    let rules: MapMatchRules
    let tree: SearchTree
    /// The plane the searches' A* bound is measured in.
    let plane: MatchPlane

    /// A route found between two states: its length in metres, its cost in metres (length + preference extra), and
    /// its first and last arcs (-1 when it has none: the two states' vertices are one).
    struct Route {
        var length: Double
        var cost: Double
        var firstArc: Int32 = -1
        var lastArc: Int32 = -1
        /// Whether it turns back on itself somewhere between its first and last arc.
        var turnsBack = false
        /// The squared plane distance from each fix between the two steps to the route's line through its vertices
        /// (``BetweenFixes``; empty when those fixes are not scored).
        var between: [Double] = []
    }

    /// The vertex a state rides towards.
    static func endVertex(_ graph: RoadGraph, _ state: MatchState) -> Int {
        Int(state.reversed ? graph.edgeSources[state.edge] : graph.edgeTargets[state.edge])
    }

    /// The vertex a state's edge is entered from.
    static func startVertex(_ graph: RoadGraph, _ state: MatchState) -> Int {
        Int(state.reversed ? graph.edgeTargets[state.edge] : graph.edgeSources[state.edge])
    }

    /// Cost per metre of `edge` ridden in direction `reversed`.
    func perMetre(_ edge: Int, reversed: Bool) -> Double {
        let length = graph.edgeLengths[edge]
        let cost = reversed ? costs.backward[edge] : costs.forward[edge]
        return length > 0 ? cost / length : 1
    }

    /// The route from `a` to `b` along one edge ridden one way, when `b` lies ahead of `a` (or behind it by no more
    /// than the backtrack tolerance, read as standing still); `nil` otherwise.
    func direct(_ a: MatchState, _ b: MatchState, tolerance: Double) -> Route? {
        guard a.edge == b.edge, a.reversed == b.reversed, b.position >= a.position - tolerance else { return nil }
        let length = max(b.position - a.position, 0)
        return Route(length: length, cost: length * perMetre(a.edge, reversed: a.reversed))
    }

    /// The cost in nats of a transition along `route` across `gap`; infinite beyond its bound.
    func cost(_ route: Route, _ gap: MatchGap) -> Double {
        guard route.length <= gap.bound else { return .infinity }
        return (abs(route.length - gap.greatCircle) + (route.cost - route.length)) / gap.beta
    }

    /// The route from `a` through the vertices `middle` joins to `b`, with the U-turn penalty when it turns back at
    /// either end or on the way (a rider rarely does; GPS noise beside a junction often looks like it).
    func joined(_ a: MatchState, _ middle: Route, _ b: MatchState) -> Route {
        let rest = graph.edgeLengths[a.edge] - a.position
        var route = Route(length: rest + middle.length + b.position,
                          cost: rest * perMetre(a.edge, reversed: a.reversed) + middle.cost + b.position * perMetre(b.edge, reversed: b.reversed))
        let turnsBack = middle.turnsBack || (middle.firstArc < 0 ? a.edge == b.edge
                                                                 : Int(middle.firstArc >> 1) == a.edge || Int(middle.lastArc >> 1) == b.edge)
        if turnsBack { route.cost += rules.uTurnPenalty }
        return route
    }

    /// The transition costs from every state in `from` to every state in `to` (row-major, `from.count × to.count`)
    /// into `matrix`, across `gap`.
    func fill(_ matrix: inout [Double], from: ArraySlice<MatchState>, to: ArraySlice<MatchState>, gap: MatchGap) {
        matrix.removeAll(keepingCapacity: true)
        matrix.append(contentsOf: repeatElement(.infinity, count: from.count * to.count))
        let targets = Array(Set(to.map { Self.startVertex(graph, $0) }))
        // The fixes between the two steps, scored along each candidate route: the route's line is the tail of the
        // earlier state's edge, the search's vertices, and the head of the later state's edge — each fix's nearest
        // distance to it is the least of its distances to the three parts, so each part is measured once, not per pair.
        let fixes = betweenFixes(gap)
        let tails = fixes.map { fixes in from.map { fixes.squaredDistances(along: statePart($0, after: true)) } }
        let heads = fixes.map { fixes in to.map { fixes.squaredDistances(along: statePart($0, after: false)) } }
        var searched: [Int: [Route?]] = [:]
        for (i, a) in from.enumerated() {
            let vertex = Self.endVertex(graph, a)
            if searched[vertex] == nil { searched[vertex] = routes(from: vertex, to: targets, bound: gap.bound, between: fixes) }
            let found = searched[vertex]!
            for (j, b) in to.enumerated() {
                var best = Double.infinity, evidence = 0.0
                if let route = direct(a, b, tolerance: gap.backtrack) {
                    best = cost(route, gap)
                    if let fixes, best.isFinite {
                        evidence = fixes.cost(fixes.squaredDistances(along: directPart(a, b)))
                    }
                }
                if let index = targets.firstIndex(of: Self.startVertex(graph, b)), let middle = found[index] {
                    let joinedCost = cost(joined(a, middle, b), gap)
                    if let fixes, let tails, let heads, joinedCost.isFinite {
                        let joinedEvidence = fixes.cost(tails[i], middle.between, heads[j])
                        if joinedCost + rules.interpolatedEvidence * joinedEvidence < best + rules.interpolatedEvidence * evidence {
                            (best, evidence) = (joinedCost, joinedEvidence)
                        }
                    } else if joinedCost < best {
                        best = joinedCost
                    }
                }
                matrix[i * to.count + j] = best.isFinite ? best + rules.interpolatedEvidence * evidence : best
            }
        }
    }

    /// The fixes between the steps of `gap` when they are scored (``MapMatchRules/interpolatedEvidence``).
    func betweenFixes(_ gap: MatchGap) -> BetweenFixes? {
        rules.interpolatedEvidence > 0 && !gap.between.isEmpty ? BetweenFixes(gap.between, cap: rules.interpolatedCostCap) : nil
    }

    /// The line a state rides on its edge, in travel order: after its point (its point, then the edge's shape points
    /// beyond it up to the vertex it rides towards) or before it (from the vertex it entered by up to its point).
    func statePart(_ state: MatchState, after: Bool) -> [(latitude: Double, longitude: Double)] {
        var line: [(latitude: Double, longitude: Double)] = []
        if after { line.append((state.latitude, state.longitude)) }
        appendShape(state.edge, reversed: state.reversed, after: after ? state.position : -1, before: after ? .infinity : state.position,
                    to: &line)
        if !after { line.append((state.latitude, state.longitude)) }
        return line
    }

    /// The line from `a` to `b` along their one edge.
    func directPart(_ a: MatchState, _ b: MatchState) -> [(latitude: Double, longitude: Double)] {
        var line: [(latitude: Double, longitude: Double)] = [(a.latitude, a.longitude)]
        appendShape(a.edge, reversed: a.reversed, after: a.position, before: b.position, to: &line)
        line.append((b.latitude, b.longitude))
        return line
    }

    /// Appends the shape points of `edge` ridden in direction `reversed` whose metres from where the edge is entered
    /// lie strictly between `after` and `before` (the edge's end vertices included when the bounds allow).
    private func appendShape(_ edge: Int, reversed: Bool, after: Double, before: Double,
                             to line: inout [(latitude: Double, longitude: Double)]) {
        let start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
        guard end > start else { return }
        let length = graph.edgeLengths[edge]
        let first = line.count
        var offset = 0.0  // metres from the source, summed as the snap offsets are (``RoadGraph/shapeOffset(ofPoint:edge:)``)
        for point in start..<end {
            let fromSource = point == end - 1 ? length : offset
            if point < end - 1 { offset += graph.segmentLength(point) }
            let along = reversed ? length - fromSource : fromSource
            if along > after && along < before { line.append((graph.shapeLatitudes[point], graph.shapeLongitudes[point])) }
        }
        if reversed { line[first...].reverse() }
    }

    /// The cheapest routes from `vertex` to each of `targets` (`nil` where none is found within the bound).
    ///
    /// A* towards the circle round the targets (``MatchPlane``): a consistent bound, so every target found has its
    /// exact cost, as Dijkstra would give it — but a target the bound cannot reach no longer makes the search settle
    /// the whole disc of the cost bound round `vertex`, only the ellipse from it to the targets.
    func routes(from vertex: Int, to targets: [Int], bound: Double, between: BetweenFixes? = nil) -> [Route?] {
        tree.reset()
        var remaining = targets.count
        let costBound = bound * Self.boundSlack
        let potential = plane.potential(towards: targets, graph)
        tree.grow(graph, costs, backwards: false, seeds: [(vertex, 0)], potential: potential, stop: { $0 > costBound || remaining == 0 },
                  settle: { settled, _ in if targets.contains(settled) { remaining -= 1 } })
        return targets.map { target in
            let cost = tree.distance(target)
            guard cost.isFinite, tree.isSettled(target) else { return nil }
            var route = walk(to: target)
            route.cost = cost
            if let between { route.between = between.squaredDistances(along: middleLine(to: target)) }
            return route
        }
    }

    /// The line of the search tree's path to `target` (every shape point of its arcs, in travel order).
    private func middleLine(to target: Int) -> [(latitude: Double, longitude: Double)] {
        var line: [(latitude: Double, longitude: Double)] = [(graph.vertexLatitudes[target], graph.vertexLongitudes[target])]
        var vertex = target
        var arc = tree.parent(vertex)
        while arc >= 0 {
            // Walked backwards from the target: each edge's shape from its far end towards the vertex before it.
            let edge = Int(arc >> 1), start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
            let travelReversed = arc & 1 == 1
            // The edge is ridden source → target unless reversed; walking backwards, go target → source unless reversed.
            if travelReversed {
                for point in (start + 1)..<end { line.append((graph.shapeLatitudes[point], graph.shapeLongitudes[point])) }
            } else {
                for point in stride(from: end - 2, through: start, by: -1) { line.append((graph.shapeLatitudes[point], graph.shapeLongitudes[point])) }
            }
            vertex = SearchTree.otherEnd(graph, arc: arc, from: vertex)
            arc = tree.parent(vertex)
        }
        return line  // backwards; the distances do not depend on the order
    }

    /// The search stops at costs of this many times the length bound (costs exceed lengths on disfavoured ways).
    static let boundSlack = 2.0

    /// The search tree's path to `target`: its metres, first and last arcs, and whether it turns back (an edge
    /// followed by itself).
    private func walk(to target: Int) -> Route {
        var route = Route(length: 0, cost: 0)
        var vertex = target
        var arc = tree.parent(vertex)
        route.lastArc = arc
        while arc >= 0 {
            route.length += graph.edgeLengths[Int(arc >> 1)]
            route.firstArc = arc
            vertex = SearchTree.otherEnd(graph, arc: arc, from: vertex)
            arc = tree.parent(vertex)
            if arc >= 0, arc >> 1 == route.firstArc >> 1 { route.turnsBack = true }
        }
        return route
    }
}

extension RoadWeights {
    /// The matcher's costs: each allowed direction of an edge weighs its length × (pmax / p)^`exponent`, p the way's
    /// preference and pmax the profile's highest (forbidden directions stay infinite).
    init(matchingCostsOf graph: RoadGraph, exponent: Double, minorFactor: Double = 1, minorClasses: Set<String> = []) {
        // Exponent 0 gives plain lengths: the factor is 1 everywhere.
        let highest = graph.profile.maximumPreference
        var forward = graph.edgeLengths, backward = graph.edgeLengths
        for edge in 0..<graph.edgeCount {
            let use = graph.ways.use(of: Int(graph.edgeWays[edge]))
            let preference = max(use.preference, 1e-3)
            let minor = Self.isMinor(use, classes: minorClasses, profile: graph.profile) ? Swift.max(minorFactor, 1) : 1
            let factor = Swift.max(1, Foundation.pow(highest / preference, exponent)) * minor
            forward[edge] = graph.edgeForwardWeights[edge].isFinite ? forward[edge] * factor : .infinity
            backward[edge] = graph.edgeBackwardWeights[edge].isFinite ? backward[edge] * factor : .infinity
        }
        self.overlay = .empty
        self.forward = forward
        self.backward = backward
        self.unmatchedPairs = 0
        self.graphFingerprint = graph.fingerprint
    }

    /// Plain lengths on every arc the profile allows (infinite where it does not): the shortest way, with no
    /// preference — e.g. for simulated riders who cut through (``RideSimulator/rides(count:length:settings:seed:weights:)``).
    public static func lengths(of graph: RoadGraph) -> RoadWeights {
        RoadWeights(matchingCostsOf: graph, exponent: 0)
    }

    /// Whether `use` is a minor way for the matcher: its class is in `classes` and nothing raised its preference above
    /// the class's own — a path or footway designated for bicycles (or in a cycle network) is a cycleway in all but
    /// its `highway` tag, and must not cost more than the road beside it.
    static func isMinor(_ use: BikeWayUse, classes: Set<String>, profile: BikeProfile) -> Bool {
        guard classes.contains(use.wayClass) else { return false }
        return use.preference <= (profile.classPreferences[use.wayClass] ?? 1) + 1e-9
    }
}

/// A local plane over the graph's extract for the matcher's A* bound: x and y in metres, east–west scaled by the cosine
/// of the extract's highest latitude (so a plane distance never exceeds the great-circle distance) and both shrunk by
/// ½ % for the sphere's curvature. Costs are at least edge lengths, which are at least great-circle distances, so the
/// plane distance to the targets' circle is a consistent bound. Unused (zero) for an extract wider than 90° of
/// longitude (one crossing the antimeridian), where the plane would overestimate.
struct MatchPlane: Sendable {
    let xScale: Double
    let yScale: Double
    let usable: Bool

    init(graph: RoadGraph) {
        let radius = 6_371_008.8 * 0.995 * Double.pi / 180
        let highest = min(graph.vertexLatitudes.lazy.map(abs).max() ?? 0, 89.9)
        let span = (graph.vertexLongitudes.max() ?? 0) - (graph.vertexLongitudes.min() ?? 0)
        xScale = radius * cos(highest * .pi / 180)
        yScale = radius
        usable = span <= 90 && graph.vertexLatitudes.allSatisfy(\.isFinite)
    }

    /// The A* potential of a search towards `targets`: the plane distance to the circle holding them all.
    func potential(towards targets: [Int], _ graph: RoadGraph) -> (Int) -> Double {
        guard usable, !targets.isEmpty else { return { _ in 0 } }
        let xs = graph.vertexLongitudes, ys = graph.vertexLatitudes
        var cx = 0.0, cy = 0.0
        for t in targets { cx += xs[t]; cy += ys[t] }
        cx = cx / Double(targets.count) * xScale
        cy = cy / Double(targets.count) * yScale
        var reach = 0.0
        for t in targets { reach = max(reach, ((xs[t] * xScale - cx) * (xs[t] * xScale - cx) + (ys[t] * yScale - cy) * (ys[t] * yScale - cy)).squareRoot()) }
        let (xScale, yScale) = (xScale, yScale)
        return { v in
            let dx = xs[v] * xScale - cx, dy = ys[v] * yScale - cy
            return max(0, (dx * dx + dy * dy).squareRoot() - reach)
        }
    }
}

/// The fixes between two steps in a local plane (metres around the first), for scoring them along candidate routes
/// (``MapMatchRules/interpolatedEvidence``).
struct BetweenFixes {
    /// Snapping's local plane around the first fix.
    private let frame: SnapFrame
    private let points: [(x: Double, y: Double)]
    /// 1 / (2σ²) per fix.
    private let weights: [Double]
    private let cap: Double

    init(_ fixes: [MatchGap.Fix], cap: Double) {
        let frame = SnapFrame(latitude: fixes[0].latitude, longitude: fixes[0].longitude)
        self.frame = frame
        points = fixes.map { frame.plane(latitude: $0.latitude, longitude: $0.longitude) }
        weights = fixes.map { 1 / (2 * $0.sigma * $0.sigma) }
        self.cap = cap
    }

    /// Each fix's squared distance to the line through `line`'s points (to its one point when it has one; infinite
    /// when it has none).
    func squaredDistances(along line: [(latitude: Double, longitude: Double)]) -> [Double] {
        var nearest = [Double](repeating: .infinity, count: points.count)
        guard let first = line.first else { return nearest }
        var previous = frame.plane(latitude: first.latitude, longitude: first.longitude)
        for (k, point) in points.enumerated() { nearest[k] = SnapFrame.squaredDistance(from: point, toSegment: previous, previous) }
        for next in line.dropFirst() {
            let current = frame.plane(latitude: next.latitude, longitude: next.longitude)
            for (k, point) in points.enumerated() {
                nearest[k] = min(nearest[k], SnapFrame.squaredDistance(from: point, toSegment: previous, current))
            }
            previous = current
        }
        return nearest
    }

    /// The fixes' cost given their squared distances to a route's parts (the least one counts): Σ min(d² / 2σ², cap)
    /// − 1 per fix. The 1 is the term's mean on the route ridden (d² / σ² of a 2-D Gaussian averages 2): every
    /// candidate of a gap is scored over the same fixes, so it changes no choice, but it keeps a step's cost on the
    /// ridden route near what it was without these fixes — the outlier skip's test ("the last steps cost more than
    /// the penalty", ``MatchViterbi``) stays a test for outliers, not for how many fixes lay between two steps.
    func cost(_ parts: [Double]...) -> Double {
        var total = 0.0
        for k in weights.indices {
            var nearest = Double.infinity
            for part in parts where k < part.count { nearest = min(nearest, part[k]) }
            total += min(nearest * weights[k], cap) - 1
        }
        return total
    }
}
