import Foundation

/// A uniform grid over the bounding box of a graph's shape segments, in flat arrays: for each cell (row-major), the
/// segments that cross it, as compressed rows — `entries[cellStarts[cell] ..< cellStarts[cell + 1]]` are the start
/// shape points of those segments (segment i joins shape points i and i + 1).
///
/// A segment is entered in every cell its straight line in degrees passes through (clipped row by row), not in every
/// cell of its bounding box, so a long diagonal segment (a ferry) costs its row and column count, not their product.
struct SnapGrid: Sendable {
    /// South-west corner of cell (0, 0), in degrees.
    let south: Double, west: Double
    /// Cell height (latitude) and width (longitude) in degrees.
    let cellLatitude: Double, cellLongitude: Double
    let rows: Int, columns: Int
    private(set) var cellStarts: [Int32] = [0]
    private(set) var entries: [Int32] = []

    /// Cells per segment the grid aims at when it sizes its cells from the data: about two cells per segment over the
    /// bounding box keeps city centres at a handful of segments per cell.
    static let cellsPerSegment = 2.0
    /// Smallest cell side in metres (tiny graphs, fixtures).
    static let minimumCellMetres = 10.0
    /// The most cells a grid holds (4 bytes each); a larger one gets coarser cells.
    static let maximumCells = 1 << 26

    /// The grid of `graph`'s segments; cells `cellDegrees` high (and as many metres wide at the middle latitude), or
    /// sized from the data when `nil`.
    init(graph: RoadGraph, cellDegrees: Double?) {
        let box = Self.boundingBox(graph)
        south = box.south
        west = box.west
        let segments = graph.shapeLatitudes.count - graph.edgeCount
        let widthFactor = max(cos((box.south + box.north) / 2 * .pi / 180), 0.01)  // metres of longitude per metre of latitude
        var height = cellDegrees.map { $0.isFinite && $0 > 0 ? $0 : 1 } ?? Self.cellHeight(box, segments: segments, widthFactor: widthFactor)
        while Self.cellCount(box, height: height, widthFactor: widthFactor) > Double(Self.maximumCells) { height *= 2 }
        cellLatitude = height
        cellLongitude = height / widthFactor
        rows = segments > 0 ? Int(((box.north - box.south) / cellLatitude).rounded(.down)) + 1 : 0
        columns = segments > 0 ? Int(((box.east - box.west) / cellLongitude).rounded(.down)) + 1 : 0
        guard segments > 0 else { return }
        fill(graph)
    }

    /// Counts each cell's segments, turns the counts into starts, then places the segments.
    private mutating func fill(_ graph: RoadGraph) {
        var counts = [Int32](repeating: 0, count: rows * columns + 1)
        forEachSegment(graph) { cell, _ in counts[cell + 1] += 1 }
        for cell in 0..<(rows * columns) { counts[cell + 1] += counts[cell] }
        var next = counts
        var placed = [Int32](repeating: 0, count: Int(counts[rows * columns]))
        forEachSegment(graph) { cell, point in
            placed[Int(next[cell])] = Int32(point)
            next[cell] += 1
        }
        cellStarts = counts
        entries = placed
    }

    /// Calls `body(cell, start shape point)` for every cell every segment of `graph` passes through.
    private func forEachSegment(_ graph: RoadGraph, _ body: (Int, Int) -> Void) {
        for edge in 0..<graph.edgeCount {
            let start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
            for point in start..<(end - 1) {
                forEachCell(from: (graph.shapeLatitudes[point], graph.shapeLongitudes[point]),
                            to: (graph.shapeLatitudes[point + 1], graph.shapeLongitudes[point + 1])) { body($0, point) }
            }
        }
    }

    /// The cells the straight line (in degrees) from `a` to `b` passes through: row by row, the columns of the part of
    /// the line inside that row's band. Rounding at a band's edge can miss a sliver of a cell next to one it enters;
    /// the search's tolerance covers that (``SnapFrame/slack``).
    private func forEachCell(from a: (Double, Double), to b: (Double, Double), _ body: (Int) -> Void) {
        let (firstRow, lastRow) = ordered(row(a.0), row(b.0))
        for r in firstRow...lastRow {
            var (longitudeA, longitudeB) = (a.1, b.1)
            if firstRow != lastRow {
                let bandSouth = south + Double(r) * cellLatitude
                let t0 = min(1, max(0, (bandSouth - a.0) / (b.0 - a.0)))
                let t1 = min(1, max(0, (bandSouth + cellLatitude - a.0) / (b.0 - a.0)))
                longitudeA = a.1 + (b.1 - a.1) * t0
                longitudeB = a.1 + (b.1 - a.1) * t1
            }
            let (firstColumn, lastColumn) = ordered(column(longitudeA), column(longitudeB))
            for c in firstColumn...lastColumn { body(r * columns + c) }
        }
    }

    /// The row of `latitude`, clamped into the grid (a point outside it starts the search at the nearest row).
    func row(_ latitude: Double) -> Int { Self.clamped((latitude - south) / cellLatitude, count: rows) }
    /// The column of `longitude`, clamped into the grid.
    func column(_ longitude: Double) -> Int { Self.clamped((longitude - west) / cellLongitude, count: columns) }

    private static func clamped(_ position: Double, count: Int) -> Int {
        let floor = position.rounded(.down)
        guard floor >= 0 else { return 0 }  // NaN too: no trap
        return floor >= Double(count) ? max(count - 1, 0) : Int(floor)
    }

    private func ordered(_ a: Int, _ b: Int) -> (Int, Int) { a <= b ? (a, b) : (b, a) }

    private static func boundingBox(_ graph: RoadGraph) -> (south: Double, west: Double, north: Double, east: Double) {
        guard let south = graph.shapeLatitudes.min(), let north = graph.shapeLatitudes.max(),
              let west = graph.shapeLongitudes.min(), let east = graph.shapeLongitudes.max() else { return (0, 0, 0, 0) }
        return (south, west, north, east)
    }

    /// Cell height in degrees for about ``cellsPerSegment`` cells per segment over the bounding box.
    private static func cellHeight(_ box: (south: Double, west: Double, north: Double, east: Double), segments: Int,
                                   widthFactor: Double) -> Double {
        let height = max((box.north - box.south) * SnapIndex.metresPerDegree, 1)
        let width = max((box.east - box.west) * SnapIndex.metresPerDegree * widthFactor, 1)
        let side = max((height * width / (cellsPerSegment * Double(max(segments, 1)))).squareRoot(), minimumCellMetres)
        return side / SnapIndex.metresPerDegree
    }

    private static func cellCount(_ box: (south: Double, west: Double, north: Double, east: Double), height: Double,
                                  widthFactor: Double) -> Double {
        ((box.north - box.south) / height + 1) * ((box.east - box.west) * widthFactor / height + 1)
    }
}
