/// A segment's closest point to the query, before its offset along the edge is worked out.
struct SnapCandidate {
    /// The segment's start shape point.
    var point: Int32
    var edge: Int32
    var latitude: Double, longitude: Double
    /// Great-circle metres from the query.
    var distance: Double

    /// Nearer first; ties by edge, then by segment — the same answer whatever order the cells are visited in.
    func precedes(_ other: SnapCandidate) -> Bool {
        (distance, edge, point) < (other.distance, other.edge, other.point)
    }
}

/// What the search keeps of the candidates it finds.
protocol SnapCollector {
    /// Metres beyond which no candidate can be kept any more (the radius, or the worst of those kept once full).
    var limit: Double { get }
    /// Considers a candidate no farther than ``limit``.
    mutating func offer(_ candidate: SnapCandidate)
}

/// The nearest candidate: two numbers of state, no allocation.
struct NearestSnapCollector: SnapCollector {
    let radius: Double
    private(set) var best: SnapCandidate?

    init(radius: Double) { self.radius = radius }

    var limit: Double { best?.distance ?? radius }

    mutating func offer(_ candidate: SnapCandidate) {
        if best.map(candidate.precedes) ?? true { best = candidate }
    }
}

/// The `count` nearest edges, each by its nearest candidate, kept sorted (`count` is small: tens).
struct NearestEdgesCollector: SnapCollector {
    let radius: Double
    let count: Int
    private(set) var kept: [SnapCandidate] = []

    init(radius: Double, count: Int) {
        self.radius = radius
        self.count = count
        kept.reserveCapacity(min(count, 64) + 1)
    }

    var limit: Double { kept.count == count ? kept[count - 1].distance : radius }

    mutating func offer(_ candidate: SnapCandidate) {
        if let same = kept.firstIndex(where: { $0.edge == candidate.edge }) {
            guard candidate.precedes(kept[same]) else { return }
            kept.remove(at: same)
        } else if kept.count == count, !candidate.precedes(kept[count - 1]) {
            return
        }
        let position = kept.firstIndex { candidate.precedes($0) } ?? kept.count
        kept.insert(candidate, at: position)
        if kept.count > count { kept.removeLast() }
    }
}
