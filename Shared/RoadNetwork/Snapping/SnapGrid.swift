import Foundation

/// A uniform grid over the bounding box of a graph's shape segments, in flat arrays: for each cell (row-major), the
/// segments that cross it, as compressed rows — `entries[cellStarts[cell] ..< cellStarts[cell + 1]]` are the start
/// shape points of those segments (segment i joins shape points i and i + 1).
///
/// A segment is entered in every cell its straight line in degrees passes through (clipped row by row), not in every
/// cell of its bounding box, so a long diagonal segment (a ferry) costs its row and column count, not their product.
///
/// Cells are sized for the area the segments *occupy*, not the bounding box: extracts of cities far apart loaded
/// together (Krems, Monaco and Helsinki: a box of 1,900 × 1,800 km) would otherwise get cells kilometres wide, each
/// holding a whole town, and a snap would measure thousands of segments. Such a grid is mostly empty, so it keeps only
/// its occupied cells (``sparse``: sorted, with a hash table from cell to slot) instead of a start for every cell.
struct SnapGrid: Sendable {
    /// South-west corner of cell (0, 0), in degrees.
    let south: Double, west: Double
    /// Cell height (latitude) and width (longitude) in degrees.
    let cellLatitude: Double, cellLongitude: Double
    let rows: Int, columns: Int
    /// Dense: a start per cell (`rows × columns + 1`). Sparse: a start per occupied cell (slot) and one past the last.
    private(set) var cellStarts: [Int32] = [0]
    private(set) var entries: [Int32] = []
    /// The occupied cells' slots when the grid is sparse; `nil` when dense.
    private(set) var sparse: SparseCells?

    /// Cells per segment the grid aims at when it sizes its cells from the data: about two cells per segment over the
    /// area the network occupies keeps city centres at a handful of segments per cell.
    static let cellsPerSegment = 2.0
    /// Smallest cell side in metres (tiny graphs, fixtures).
    static let minimumCellMetres = 10.0
    /// The most cells a dense grid holds (4 bytes each); a larger one gets coarser cells.
    static let maximumCells = 1 << 26
    /// The occupied share of the blocks (``occupancyBlock``) below which the cells are sized again for the occupied
    /// area (the grid then has many more cells than segments and is stored sparse).
    static let sparseOccupancy = 0.25
    /// A grid with more cells than this many per segment is stored sparse.
    static let denseCellsPerSegment = 8.0

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
        if cellDegrees == nil, segments > 0 {
            height = Self.occupiedHeight(graph, box: box, height: height, segments: segments, widthFactor: widthFactor)
        }
        cellLatitude = height
        cellLongitude = height / widthFactor
        rows = segments > 0 ? Int(((box.north - box.south) / cellLatitude).rounded(.down)) + 1 : 0
        columns = segments > 0 ? Int(((box.east - box.west) / cellLongitude).rounded(.down)) + 1 : 0
        guard segments > 0 else { return }
        let cells = Double(rows) * Double(columns)
        if cells > Double(Self.maximumCells) || cells > Self.denseCellsPerSegment * Double(segments) {
            fillSparse(graph)
        } else {
            fill(graph)
        }
    }

    /// The entries of cell `cell` (`row × columns + column`): indices into ``entries``.
    @inline(__always)
    func range(ofCell cell: Int) -> Range<Int> {
        if let sparse {
            guard let slot = sparse.slot(of: cell) else { return 0..<0 }
            return Int(cellStarts[slot])..<Int(cellStarts[slot + 1])
        }
        return Int(cellStarts[cell])..<Int(cellStarts[cell + 1])
    }

    /// Starting from a height sized for the bounding box, the height sized for the area the network occupies. The
    /// occupied area is measured on blocks of ``occupancyBlock`` × ``occupancyBlock`` cells — coarse enough that a
    /// town's street mesh fills its blocks, fine enough to see the empty land between towns. While fewer than
    /// ``sparseOccupancy`` of the blocks hold a shape point, the height is sized again for ``cellsPerSegment`` cells per
    /// segment over the occupied blocks' area (a few rounds: finer blocks see the towns more closely). A network that
    /// fills its box keeps the height it had.
    private static func occupiedHeight(_ graph: RoadGraph, box: (south: Double, west: Double, north: Double, east: Double),
                                       height start: Double, segments: Int, widthFactor: Double) -> Double {
        let smallest = minimumCellMetres / SnapIndex.metresPerDegree
        var height = start
        for _ in 0..<6 {
            let block = height * Double(occupancyBlock)
            let (occupied, total) = occupiedBlocks(graph, box: box, block: block, widthFactor: widthFactor)
            guard Double(occupied) < sparseOccupancy * Double(total) else { break }
            // The occupied blocks' area in square degrees of latitude (a block's width in metres equals its height at
            // the middle latitude).
            let next = max((Double(occupied) * block * block / (cellsPerSegment * Double(segments))).squareRoot(), smallest)
            guard next < 0.9 * height else { break }
            height = next
        }
        return height
    }

    /// Cells per side of the blocks ``occupiedHeight`` measures occupancy on.
    static let occupancyBlock = 16

    /// How many blocks `block` degrees high (and as many metres wide) hold a shape point of `graph`, of how many.
    private static func occupiedBlocks(_ graph: RoadGraph, box: (south: Double, west: Double, north: Double, east: Double),
                                       block: Double, widthFactor: Double) -> (occupied: Int, total: Int) {
        let rows = Int(((box.north - box.south) / block).rounded(.down)) + 1
        let columns = Int(((box.east - box.west) * widthFactor / block).rounded(.down)) + 1
        func number(_ point: Int) -> Int {
            Int(((graph.shapeLatitudes[point] - box.south) / block).rounded(.down)) * columns
                + Int(((graph.shapeLongitudes[point] - box.west) * widthFactor / block).rounded(.down))
        }
        let total = rows * columns
        if total <= 1 << 27 {  // a bitmap of at most 16 MB
            var bits = [UInt64](repeating: 0, count: total / 64 + 1)
            var occupied = 0
            for point in graph.shapeLatitudes.indices {
                let n = number(point), mask = UInt64(1) << UInt64(n & 63)
                if bits[n >> 6] & mask == 0 {
                    bits[n >> 6] |= mask
                    occupied += 1
                }
            }
            return (occupied, total)
        }
        var numbers = graph.shapeLatitudes.indices.map(number)
        numbers.sort()
        var occupied = 0
        for index in numbers.indices where index == 0 || numbers[index] != numbers[index - 1] { occupied += 1 }
        return (occupied, total)
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

    /// The sparse layout: every (cell, segment) pair sorted by cell, the occupied cells numbered in that order (their
    /// slots), a start per slot, and a table from cell to slot.
    private mutating func fillSparse(_ graph: RoadGraph) {
        var pairs: [(cell: Int, point: Int32)] = []
        forEachSegment(graph) { cell, point in pairs.append((cell, Int32(point))) }
        pairs.sort { $0.cell != $1.cell ? $0.cell < $1.cell : $0.point < $1.point }
        var cells: [Int] = [], starts: [Int32] = []
        for (index, pair) in pairs.enumerated() where index == 0 || pair.cell != pairs[index - 1].cell {
            cells.append(pair.cell)
            starts.append(Int32(index))
        }
        starts.append(Int32(pairs.count))
        cellStarts = starts
        entries = pairs.map(\.point)
        sparse = SparseCells(cells: cells)
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

/// The occupied cells of a sparse ``SnapGrid``: an open-addressing hash table (linear probing, at most half full)
/// from a cell number to its slot, the cell's position among the occupied cells in ascending order.
struct SparseCells: Sendable {
    /// The occupied cells' numbers, ascending: slot → cell.
    let cells: [Int]
    /// Cell numbers by table position; -1 where empty.
    private let keys: [Int]
    /// The slot of the cell at the same table position.
    private let slots: [Int32]
    private let mask: Int

    /// Bytes of the table.
    var memoryBytes: Int { (cells.count + keys.count) * 8 + slots.count * 4 }

    /// The table of `cells` (ascending, distinct), each mapped to its index.
    init(cells: [Int]) {
        var capacity = 16
        while capacity < 2 * cells.count { capacity <<= 1 }
        var keys = [Int](repeating: -1, count: capacity), slots = [Int32](repeating: 0, count: capacity)
        mask = capacity - 1
        for (slot, cell) in cells.enumerated() {
            var position = Self.hash(cell) & mask
            while keys[position] >= 0 { position = (position + 1) & mask }
            keys[position] = cell
            slots[position] = Int32(slot)
        }
        self.keys = keys
        self.slots = slots
        self.cells = cells
    }

    /// The slot of `cell`, or `nil` when it holds no segment.
    @inline(__always)
    func slot(of cell: Int) -> Int? {
        var position = Self.hash(cell) & mask
        while true {
            let key = keys[position]
            if key == cell { return Int(slots[position]) }
            if key < 0 { return nil }
            position = (position + 1) & mask
        }
    }

    /// Fibonacci hashing: the product's high bits, so neighbouring cells spread over the table.
    @inline(__always)
    private static func hash(_ cell: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: cell) &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }
}
