extension SnapIndex {
    /// The nearest edge within `radius` metres of (`latitude`, `longitude`) that `accepts` lets through, or `nil`.
    /// The same search as ``nearest(latitude:longitude:radius:)``: an edge refused never shortens the search.
    public func nearest(latitude: Double, longitude: Double, radius: Double, where accepts: (Int) -> Bool) -> Snap? {
        guard self.accepts(latitude: latitude, longitude: longitude, radius: radius) else { return nil }
        return withoutActuallyEscaping(accepts) { accepts in
            var collector = FilteredNearestSnapCollector(radius: radius, accepts: accepts)
            search(&collector, frame: SnapFrame(latitude: latitude, longitude: longitude))
            return collector.best.map(snap)
        }
    }
}

/// The nearest candidate whose edge passes a test.
struct FilteredNearestSnapCollector: SnapCollector {
    let radius: Double
    let accepts: (Int) -> Bool
    private(set) var best: SnapCandidate?

    init(radius: Double, accepts: @escaping (Int) -> Bool) {
        self.radius = radius
        self.accepts = accepts
    }

    var limit: Double { best?.distance ?? radius }

    mutating func offer(_ candidate: SnapCandidate) {
        guard best.map(candidate.precedes) ?? true, accepts(Int(candidate.edge)) else { return }
        best = candidate
    }
}
