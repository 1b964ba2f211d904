extension SnapIndex {
    /// Every edge within `radius` metres of (`latitude`, `longitude`), nearest first (one snap per edge: its closest
    /// point), ties by edge; empty for a coordinate off the globe, a radius that is not finite and ≥ 0, or an empty graph.
    ///
    /// The map matcher's candidates: unlike ``candidates(latitude:longitude:radius:limit:)`` nothing is cut by a count,
    /// so the search stops only where the radius does.
    public func edges(within radius: Double, latitude: Double, longitude: Double) -> [Snap] {
        guard abs(latitude) <= 90, abs(longitude) <= 180, radius.isFinite, radius >= 0, !grid.entries.isEmpty else { return [] }
        var collector = EdgesWithinCollector(radius: radius)
        search(&collector, frame: SnapFrame(latitude: latitude, longitude: longitude))
        return collector.kept.sorted { $0.precedes($1) }.map(snap)
    }
}

/// Every edge within the radius, each by its nearest candidate (unsorted; the caller sorts once).
struct EdgesWithinCollector: SnapCollector {
    let radius: Double
    private(set) var kept: [SnapCandidate] = []

    init(radius: Double) { self.radius = radius }

    var limit: Double { radius }

    mutating func offer(_ candidate: SnapCandidate) {
        if let same = kept.firstIndex(where: { $0.edge == candidate.edge }) {
            if candidate.precedes(kept[same]) { kept[same] = candidate }
        } else {
            kept.append(candidate)
        }
    }
}
