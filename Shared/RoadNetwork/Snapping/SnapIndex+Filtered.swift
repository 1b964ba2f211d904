extension SnapIndex {
    /// The nearest snap within `radius` metres of (`latitude`, `longitude`) that `accepts` lets through, or `nil`: the
    /// same search and the same order (distance, then edge, then segment) as ``nearest(latitude:longitude:radius:)``,
    /// but a snap refused never shortens the search. `accepts` sees each candidate that would be the best so far, with
    /// its offset; it should be cheap (the router's is a few flag lookups).
    public func nearest(latitude: Double, longitude: Double, radius: Double, where accepts: (Snap) -> Bool) -> Snap? {
        guard abs(latitude) <= 90, abs(longitude) <= 180, radius.isFinite, radius >= 0, !grid.entries.isEmpty else { return nil }
        return withoutActuallyEscaping(accepts) { accepts in
            var collector = FilteredNearestSnapCollector(radius: radius) { accepts(snap($0)) }
            search(&collector, frame: SnapFrame(latitude: latitude, longitude: longitude))
            return collector.best.map(snap)
        }
    }
}

/// The nearest candidate that passes a test.
struct FilteredNearestSnapCollector: SnapCollector {
    let radius: Double
    let accepts: (SnapCandidate) -> Bool
    private(set) var best: SnapCandidate?

    init(radius: Double, accepts: @escaping (SnapCandidate) -> Bool) {
        self.radius = radius
        self.accepts = accepts
    }

    var limit: Double { best?.distance ?? radius }

    mutating func offer(_ candidate: SnapCandidate) {
        guard best.map(candidate.precedes) ?? true, accepts(candidate) else { return }
        best = candidate
    }
}
