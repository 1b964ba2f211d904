import Foundation

/// Finds the bike-usable edges nearest to a coordinate: the projected point, its distance and its offset along the
/// edge.
///
/// Each shape segment is projected on in a local equirectangular projection around the query point (error well below
/// a centimetre at the radii used here); the reported distance is the great-circle distance to the projected point and
/// the offset the shape's length up to it, in metres on the sphere's mean radius like the graph's lengths. The answer
/// is the minimum of that distance over every segment of the graph (ties by edge), found in a ``SnapGrid`` searched
/// ring by ring outwards until the bound of ``SnapFrame`` shows that no unseen segment can be nearer.
public struct SnapIndex: Sendable {
    /// The graph snapped onto.
    public let graph: RoadGraph
    /// Grid cell height in degrees of latitude (cells are about as wide in metres).
    public var cellDegrees: Double { grid.cellLatitude }
    let grid: SnapGrid

    /// Bytes the index keeps beside the graph: the grid's cell rows and entries (and a sparse grid's cell table).
    public var memoryBytes: Int {
        var total = (grid.cellStarts.count + grid.entries.count) * 4
        if let sparse = grid.sparse { total += sparse.memoryBytes }
        return total
    }

    /// Where a coordinate meets an edge.
    public struct Snap: Sendable, Hashable {
        /// The edge.
        public var edge: Int
        /// Index of the shape segment within the edge (0 for the first).
        public var segment: Int
        /// The projected point.
        public var latitude: Double
        public var longitude: Double
        /// Metres from the query coordinate to the projected point.
        public var distance: Double
        /// Metres from the edge's source along its shape to the projected point.
        public var offset: Double
    }

    /// Indexes every segment of `graph`, in cells `cellDegrees` high, or sized from the data (about two cells per
    /// segment over the area the graph occupies: its bounding box, unless that is mostly empty) when `nil`.
    public init(graph: RoadGraph, cellDegrees: Double? = nil) {
        self.graph = graph
        grid = SnapGrid(graph: graph, cellDegrees: cellDegrees)
    }

    /// The nearest edge within `radius` metres of (`latitude`, `longitude`), or `nil` ("no street near this point").
    public func nearest(latitude: Double, longitude: Double, radius: Double) -> Snap? {
        guard accepts(latitude: latitude, longitude: longitude, radius: radius) else { return nil }
        var collector = NearestSnapCollector(radius: radius)
        search(&collector, frame: SnapFrame(latitude: latitude, longitude: longitude))
        return collector.best.map(snap)
    }

    /// Up to `limit` edges within `radius` metres, nearest first (one snap per edge: its closest point), ties by edge.
    public func candidates(latitude: Double, longitude: Double, radius: Double, limit: Int) -> [Snap] {
        guard limit > 0, accepts(latitude: latitude, longitude: longitude, radius: radius) else { return [] }
        var collector = NearestEdgesCollector(radius: radius, count: limit)
        search(&collector, frame: SnapFrame(latitude: latitude, longitude: longitude))
        return collector.kept.map(snap)
    }

    /// Metres per degree on the sphere of the graph's lengths.
    static let metresPerDegree = 6_371_008.8 * .pi / 180

    /// A coordinate on the globe, a finite radius and a graph with segments; anything else has no snap.
    private func accepts(latitude: Double, longitude: Double, radius: Double) -> Bool {
        abs(latitude) <= 90 && abs(longitude) <= 180 && radius.isFinite && radius >= 0 && !grid.entries.isEmpty
    }

    /// Visits the grid ring by ring around the query's cell until the block seen so far covers every point that could
    /// still beat the collector's limit.
    func search<Collector: SnapCollector>(_ collector: inout Collector, frame: SnapFrame) {
        let row = grid.row(frame.latitude), column = grid.column(frame.longitude)
        var cutoff = frame.squaredCutoff(beyond: collector.limit)
        var ring = 0
        while true {
            let rows = max(row - ring, 0)...min(row + ring, grid.rows - 1)
            for r in rows where r == row - ring || r == row + ring {  // the ring's first and last rows: all of them
                for c in max(column - ring, 0)...min(column + ring, grid.columns - 1) {
                    scan(cell: r * grid.columns + c, frame: frame, collector: &collector, cutoff: &cutoff)
                }
            }
            for r in rows where r != row - ring && r != row + ring {  // the rows between: the ring's two ends
                if column - ring >= 0 { scan(cell: r * grid.columns + column - ring, frame: frame, collector: &collector, cutoff: &cutoff) }
                if column + ring < grid.columns { scan(cell: r * grid.columns + column + ring, frame: frame, collector: &collector, cutoff: &cutoff) }
            }
            let reach = frame.reach(grid, ring: ring, row: row, column: column)
            if reach == .infinity || frame.lowerBound(reach) > collector.limit { return }
            ring += 1
            // A sparse grid (extracts far apart) is mostly empty cells: once the block of rings would hold more
            // cells than are occupied, every occupied cell outside the block seen so far is scanned instead, and the
            // search ends — its cost is bounded by about twice the occupied cells, whatever the radius.
            if let sparse = grid.sparse, (2 * ring + 1) * (2 * ring + 1) > sparse.cells.count {
                let rows = (row - ring + 1)...(row + ring - 1), columns = (column - ring + 1)...(column + ring - 1)
                for cell in sparse.cells where !(rows.contains(cell / grid.columns) && columns.contains(cell % grid.columns)) {
                    scan(cell: cell, frame: frame, collector: &collector, cutoff: &cutoff)
                }
                return
            }
        }
    }

    /// Offers the collector every segment of `cell` the planar cutoff does not rule out.
    private func scan<Collector: SnapCollector>(cell: Int, frame: SnapFrame, collector: inout Collector, cutoff: inout Double) {
        let trusted = frame.trustedDistance * frame.trustedDistance
        for entry in grid.range(ofCell: cell) {
            let point = Int(grid.entries[entry])
            let ax = (graph.shapeLongitudes[point] - frame.longitude) * frame.scaleLongitude
            let ay = (graph.shapeLatitudes[point] - frame.latitude) * frame.scaleLatitude
            let bx = (graph.shapeLongitudes[point + 1] - frame.longitude) * frame.scaleLongitude
            let by = (graph.shapeLatitudes[point + 1] - frame.latitude) * frame.scaleLatitude
            let dx = bx - ax, dy = by - ay
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0
            let px = ax + t * dx, py = ay + t * dy
            let planarSquared = px * px + py * py
            if planarSquared > cutoff && planarSquared <= trusted { continue }
            let latitude = frame.latitude + py / frame.scaleLatitude, longitude = frame.longitude + px / frame.scaleLongitude
            let distance = RoadGraphBuilder.distance((frame.latitude, frame.longitude), (latitude, longitude))
            guard distance <= collector.limit else { continue }
            let before = collector.limit
            collector.offer(SnapCandidate(point: Int32(point), edge: Int32(graph.edge(ofPoint: point)), latitude: latitude,
                                          longitude: longitude, distance: distance))
            if collector.limit != before { cutoff = frame.squaredCutoff(beyond: collector.limit) }
        }
    }

    /// The snap of a candidate, with its offset: the shape's length up to its segment plus the part of the segment up
    /// to the point — the same sums in the same order as walking the shape.
    func snap(_ candidate: SnapCandidate) -> Snap {
        let point = Int(candidate.point), edge = Int(candidate.edge)
        let offset = graph.shapeOffset(ofPoint: point, edge: edge)
            + RoadGraphBuilder.distance((graph.shapeLatitudes[point], graph.shapeLongitudes[point]), (candidate.latitude, candidate.longitude))
        return Snap(edge: edge, segment: point - Int(graph.edgeShapeStarts[edge]), latitude: candidate.latitude,
                    longitude: candidate.longitude, distance: candidate.distance, offset: offset)
    }
}
