extension RoadComponents {
    /// What a snapped point is to its route: where it starts, where it ends, or a point it passes (both).
    public enum Role: Sendable, Hashable {
        case origin, destination, via
    }
}

extension RoadRouter {
    /// Where point `point` goes on the network in `role`, within `radius` metres: its nearest edge when a route can
    /// leave it into a main component (an origin), be ridden to it from one (a destination), or both (a via point);
    /// else the nearest edge within the radius that can; else, when none can, the nearest edge all the same (a route
    /// from there may still exist, or the search answers `NoRoute`). `nil` when no edge lies within the radius.
    /// Each candidate costs a few flag lookups (``RoadComponents``), never a search.
    public func snap(_ point: RoadPoint, as role: RoadComponents.Role, radius: Double) -> SnapIndex.Snap? {
        guard let nearest = snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: radius) else { return nil }
        if connectsWithMain(nearest, as: role) { return nearest }
        return snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: radius) {
            connectsWithMain($0, as: role)
        } ?? nearest
    }

    /// Whether a route can leave `snap` into a main component (origin), reach it from one (destination), or both (via).
    public func connectsWithMain(_ snap: SnapIndex.Snap, as role: RoadComponents.Role) -> Bool {
        func leaves() -> Bool {
            let (target, source) = exits(snap)
            return target.map(components.reachesMain(vertex:)) == true || source.map(components.reachesMain(vertex:)) == true
        }
        func entered() -> Bool {
            let (source, target) = entries(snap)
            return source.map(components.isReachedFromMain(vertex:)) == true || target.map(components.isReachedFromMain(vertex:)) == true
        }
        switch role {
        case .origin: return leaves()
        case .destination: return entered()
        case .via: return leaves() && entered()
        }
    }

    /// The request's points snapped for routing: each onto its nearest edge; then, for every leg whose nearest edges do
    /// not connect (no vertex a route can leave the first by reaches one the second can be reached from, and no piece
    /// of one shared edge joins them), each end of it that does not connect with a main component in its role moves as
    /// ``snap(_:as:radius:)`` says (a via point so moved must connect both ways). A leg that connects as snapped is
    /// never changed, so a route the nearest edges have is always the one returned.
    func snap(_ points: [RoadPoint], radius: Double) throws(RouteError) -> [SnapIndex.Snap] {
        var snaps: [SnapIndex.Snap] = []
        for (index, point) in points.enumerated() {
            guard let snap = snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: radius) else {
                throw .noStreetNear(index: index)
            }
            snaps.append(snap)
        }
        var moves = Set<Int>()
        for leg in 0..<(snaps.count - 1) {
            // Flags first: with both ends fine nothing would move, so the leg's own connectivity is not even asked.
            let originFails = !connectsWithMain(snaps[leg], as: .origin)
            let destinationFails = !connectsWithMain(snaps[leg + 1], as: .destination)
            guard originFails || destinationFails, !connects(snaps[leg], snaps[leg + 1]) else { continue }
            if originFails { moves.insert(leg) }
            if destinationFails { moves.insert(leg + 1) }
        }
        for index in moves.sorted() {
            let role: RoadComponents.Role = index == 0 ? .origin : index == points.count - 1 ? .destination : .via
            snaps[index] = snap(points[index], as: role, radius: radius) ?? snaps[index]
        }
        return snaps
    }

    /// Whether a route exists from snap `a` to snap `b` (the seeds ``legEnds(from:to:weights:)`` would give).
    func connects(_ a: SnapIndex.Snap, _ b: SnapIndex.Snap) -> Bool {
        let length = graph.edgeLengths[a.edge]
        if a.edge == b.edge, allows(a.edge, from: min(a.offset, length), to: min(b.offset, length)) { return true }
        let (target, source) = exits(a), (from, to) = entries(b)
        return components.reaches(from: [target, source].compactMap { $0 }, to: [from, to].compactMap { $0 })
    }

    /// The ends of `snap`'s edge a route can ride to from the snapped point: the target, the source (each `nil` when
    /// the direction forbids it) — exactly the origin seeds of ``legEnds(from:to:weights:)`` (a piece of no length is
    /// allowed either way).
    func exits(_ snap: SnapIndex.Snap) -> (target: Int?, source: Int?) {
        let length = graph.edgeLengths[snap.edge], offset = min(snap.offset, length)
        return (allows(snap.edge, from: offset, to: length) ? Int(graph.edgeTargets[snap.edge]) : nil,
                allows(snap.edge, from: offset, to: 0) ? Int(graph.edgeSources[snap.edge]) : nil)
    }

    /// The ends of `snap`'s edge from which a route can ride to the snapped point (the destination seeds).
    func entries(_ snap: SnapIndex.Snap) -> (source: Int?, target: Int?) {
        let length = graph.edgeLengths[snap.edge], offset = min(snap.offset, length)
        return (allows(snap.edge, from: 0, to: offset) ? Int(graph.edgeSources[snap.edge]) : nil,
                allows(snap.edge, from: length, to: offset) ? Int(graph.edgeTargets[snap.edge]) : nil)
    }

    /// Whether the profile lets a bicycle along `edge` from offset `from` to `to` (as ``RoadWeights`` prices a piece:
    /// an overlay never forbids what the profile allows).
    private func allows(_ edge: Int, from: Double, to: Double) -> Bool {
        from == to || (from > to ? graph.edgeBackwardWeights[edge] : graph.edgeForwardWeights[edge]).isFinite
    }
}
