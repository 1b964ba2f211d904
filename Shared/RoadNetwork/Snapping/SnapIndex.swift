import Foundation

/// Finds the bike-usable edges nearest to a coordinate: the projected point, its distance and its offset along the
/// edge. A uniform grid of shape segments (cells of ``cellDegrees``) is searched ring by ring outwards until no closer
/// segment can exist or the radius is passed.
///
/// Distances to segments are computed in a local equirectangular projection around the query point (error well
/// below a centimetre at the radii used here); reported distances and offsets are metres on the sphere's mean radius,
/// like the graph's lengths.
public struct SnapIndex: Sendable {
    public let graph: RoadGraph
    /// Grid cell size in degrees of latitude (and of longitude).
    public let cellDegrees: Double
    private var cells: [Int64: [Int32]] = [:]  // cell key → shape segment indexes (segment i joins shape points i, i+1)
    private var segmentEdges: [Int32] = []     // shape point index → edge, for segment starts

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

    /// Indexes every segment of `graph`.
    public init(graph: RoadGraph, cellDegrees: Double = 0.002) {
        self.graph = graph
        self.cellDegrees = cellDegrees
        segmentEdges = [Int32](repeating: -1, count: graph.shapeNodeIDs.count)
        for edge in 0..<graph.edgeCount {
            let start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
            for point in start..<(end - 1) {
                segmentEdges[point] = Int32(edge)
                let (minRow, maxRow) = ordered(row(graph.shapeLatitudes[point]), row(graph.shapeLatitudes[point + 1]))
                let (minColumn, maxColumn) = ordered(column(graph.shapeLongitudes[point]), column(graph.shapeLongitudes[point + 1]))
                for r in minRow...maxRow {
                    for c in minColumn...maxColumn { cells[key(r, c), default: []].append(Int32(point)) }
                }
            }
        }
    }

    /// The nearest edge within `radius` metres of (`latitude`, `longitude`), or `nil` ("no street near this point").
    public func nearest(latitude: Double, longitude: Double, radius: Double) -> Snap? {
        candidates(latitude: latitude, longitude: longitude, radius: radius, limit: 1).first
    }

    /// Up to `limit` edges within `radius` metres, nearest first (one snap per edge: its closest point), ties by edge.
    public func candidates(latitude: Double, longitude: Double, radius: Double, limit: Int) -> [Snap] {
        guard latitude.isFinite, longitude.isFinite, radius.isFinite, radius >= 0, limit > 0, !cells.isEmpty else { return [] }
        let metresPerDegreeLatitude = Self.metresPerDegree
        let metresPerDegreeLongitude = Self.metresPerDegree * cos(latitude * .pi / 180)
        let centreRow = row(latitude), centreColumn = column(longitude)
        let cellMetres = cellDegrees * min(metresPerDegreeLatitude, max(metresPerDegreeLongitude, 1e-9))
        var best: [Int: Snap] = [:]
        var ring = 0
        while true {
            // Every segment within `ring - 1` cells has been seen; nothing unseen is closer than (ring - 1) cells.
            let reach = Double(max(ring - 1, 0)) * cellMetres
            if reach > radius { break }
            if best.count >= limit {
                let kth = best.values.map(\.distance).sorted()[limit - 1]
                if reach > kth { break }
            }
            if ring > 2_000 { break }  // far beyond any radius in use; a guard against an absurd one
            for (r, c) in Self.ring(ring, row: centreRow, column: centreColumn) {
                for point in cells[key(r, c)] ?? [] {
                    let snap = project(Int(point), latitude: latitude, longitude: longitude,
                                       scaleLatitude: metresPerDegreeLatitude, scaleLongitude: metresPerDegreeLongitude)
                    guard snap.distance <= radius else { continue }
                    if let existing = best[snap.edge], existing.distance <= snap.distance { continue }
                    best[snap.edge] = snap
                }
            }
            ring += 1
        }
        return best.values.sorted { ($0.distance, $0.edge) < ($1.distance, $1.edge) }.prefix(limit).map(withOffset)
    }

    /// Metres per degree on the sphere of the graph's lengths.
    static let metresPerDegree = 6_371_008.8 * .pi / 180

    private func project(_ point: Int, latitude: Double, longitude: Double, scaleLatitude: Double, scaleLongitude: Double) -> Snap {
        let edge = Int(segmentEdges[point])
        let ax = (graph.shapeLongitudes[point] - longitude) * scaleLongitude, ay = (graph.shapeLatitudes[point] - latitude) * scaleLatitude
        let bx = (graph.shapeLongitudes[point + 1] - longitude) * scaleLongitude, by = (graph.shapeLatitudes[point + 1] - latitude) * scaleLatitude
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0
        let px = ax + t * dx, py = ay + t * dy
        let projectedLatitude = latitude + py / scaleLatitude
        let projectedLongitude = longitude + px / scaleLongitude
        let distance = RoadGraphBuilder.distance((latitude, longitude), (projectedLatitude, projectedLongitude))
        return Snap(edge: edge, segment: point - Int(graph.edgeShapeStarts[edge]), latitude: projectedLatitude,
                    longitude: projectedLongitude, distance: distance, offset: 0)
    }

    /// `snap` with its offset: the shape's length before its segment plus the part of the segment up to the point —
    /// computed once per returned snap, not for every segment the search compares.
    private func withOffset(_ snap: Snap) -> Snap {
        let start = Int(graph.edgeShapeStarts[snap.edge])
        let point = start + snap.segment
        var offset = 0.0
        for index in start..<point {
            offset += RoadGraphBuilder.distance((graph.shapeLatitudes[index], graph.shapeLongitudes[index]),
                                                (graph.shapeLatitudes[index + 1], graph.shapeLongitudes[index + 1]))
        }
        offset += RoadGraphBuilder.distance((graph.shapeLatitudes[point], graph.shapeLongitudes[point]), (snap.latitude, snap.longitude))
        var result = snap
        result.offset = offset
        return result
    }

    private func row(_ latitude: Double) -> Int { Int((latitude / cellDegrees).rounded(.down)) }
    private func column(_ longitude: Double) -> Int { Int((longitude / cellDegrees).rounded(.down)) }
    private func key(_ row: Int, _ column: Int) -> Int64 { Int64(row) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: column))) }
    private func ordered(_ a: Int, _ b: Int) -> (Int, Int) { a <= b ? (a, b) : (b, a) }

    /// The cells at Chebyshev distance `ring` from (row, column).
    static func ring(_ ring: Int, row: Int, column: Int) -> [(Int, Int)] {
        guard ring > 0 else { return [(row, column)] }
        var cells: [(Int, Int)] = []
        for c in (column - ring)...(column + ring) {
            cells.append((row - ring, c))
            cells.append((row + ring, c))
        }
        for r in (row - ring + 1)...(row + ring - 1) {
            cells.append((r, column - ring))
            cells.append((r, column + ring))
        }
        return cells
    }
}
