import Foundation

/// A synthetic city for `waypoint-bench roads`: a square grid of streets about 100 m apart, written as an OSM XML
/// extract so that it goes through the same reader and graph builder as a real city.
///
/// Every grid point is a node (id `row × side + column + 1`). Each row and each column of nodes is a *line* of
/// streets, cut into ways of 1–6 blocks. A line's class follows its index like a city's hierarchy (every 5th line a
/// main road: primary every 20 lines, secondary every 10 between them, tertiary the rest; residential otherwise);
/// single ways of a residential line become cycleways, footways or (one block) steps; residential and tertiary ways
/// are sometimes one-way, some with a contraflow for bicycles; main roads sometimes have cycle lanes; surfaces vary
/// with the class (`GridCity+Tags.swift`). Streets are named after their line; cycleways, footways and steps are not
/// named. About 4 % of the blocks of inner lines are missing, so the grid is not perfectly regular; the border lines
/// are complete. The same `side` and `seed` write the same bytes.
struct GridCity: Sendable {
    /// Nodes along a row (and along a column).
    let side: Int
    /// Seeds the missing blocks, the ways' lengths and their tags.
    let seed: UInt64

    /// Distance between neighbouring grid points, in metres (north–south exactly, east–west at the grid's centre).
    static let spacingMetres = 100.0
    /// The south-west corner, in degrees (anywhere on land would do; nothing depends on it).
    static let southWest = (latitude: 47.0, longitude: 9.0)
    /// Share of the blocks of an inner line that are left out.
    static let missingBlockShare = 0.04
    /// The longest way, in blocks.
    static let longestWayBlocks = 6

    /// A grid of about `nodes` nodes: the nearest square, at least 2 × 2.
    init(nodes: Int, seed: UInt64 = 18) {
        side = max(2, Int(Double(max(0, nodes)).squareRoot().rounded()))
        self.seed = seed
    }

    /// Nodes written: `side²`.
    var nodeCount: Int { side * side }

    /// Degrees of latitude between rows, in units of 10⁻⁷ degree (OSM's precision).
    var latitudeStepE7: Int {
        Int((Self.spacingMetres / Self.metresPerDegreeLatitude * 1e7).rounded())
    }

    /// Degrees of longitude between columns, in units of 10⁻⁷ degree: `spacingMetres` at the grid's middle latitude.
    var longitudeStepE7: Int {
        let middle = Self.southWest.latitude + Double(latitudeStepE7 * (side - 1)) / 2e7
        return Int((Self.spacingMetres / (Self.metresPerDegreeLatitude * cos(middle * .pi / 180)) * 1e7).rounded())
    }

    /// Metres per degree of latitude on the mean Earth radius (6,371,008.8 m).
    static let metresPerDegreeLatitude = 6_371_008.8 * .pi / 180

    /// The position of a grid point in units of 10⁻⁷ degree.
    func positionE7(row: Int, column: Int) -> (latitude: Int, longitude: Int) {
        (Int((Self.southWest.latitude * 1e7).rounded()) + row * latitudeStepE7,
         Int((Self.southWest.longitude * 1e7).rounded()) + column * longitudeStepE7)
    }

    /// The position of a grid point in degrees.
    func position(row: Int, column: Int) -> (latitude: Double, longitude: Double) {
        let e7 = positionE7(row: row, column: column)
        return (Double(e7.latitude) / 1e7, Double(e7.longitude) / 1e7)
    }

    /// The OSM id of a grid point's node.
    func nodeID(row: Int, column: Int) -> Int64 {
        Int64(row * side + column + 1)
    }

    /// What ``write(to:)`` wrote.
    struct Summary: Sendable, Hashable {
        /// Nodes written (`side²`).
        var nodes = 0
        /// Ways written.
        var ways = 0
        /// Blocks left out.
        var missingBlocks = 0
        /// Ways by `highway` class.
        var waysByClass: [String: Int] = [:]
        /// Size of the file in bytes.
        var bytes = 0
    }

    /// Writes the grid as OSM XML to `path` (replacing any file there): bounds, every node, then the ways of every
    /// row and every column.
    func write(to path: String) throws -> Summary {
        var writer = try OSMXMLWriter(path: path)
        var summary = Summary()
        let southWest = positionE7(row: 0, column: 0), northEast = positionE7(row: side - 1, column: side - 1)
        writer.begin(south: southWest.latitude, west: southWest.longitude, north: northEast.latitude, east: northEast.longitude)
        for row in 0..<side {
            for column in 0..<side {
                let position = positionE7(row: row, column: column)
                writer.node(id: nodeID(row: row, column: column), latitudeE7: position.latitude, longitudeE7: position.longitude)
            }
            try writer.flushIfFull()
        }
        summary.nodes = nodeCount
        var random = SeededGenerator(seed: seed)
        var wayID: Int64 = 1
        for horizontal in [true, false] {
            for line in 0..<side {
                let ways = lineWays(line, horizontal: horizontal, random: &random, missing: &summary.missingBlocks)
                for way in ways {
                    writer.way(id: wayID, nodeIDs: way.nodeIDs, tags: way.tags)
                    wayID += 1
                    summary.waysByClass[way.tags.first(where: { $0.key == "highway" })?.value ?? "", default: 0] += 1
                }
                summary.ways += ways.count
                try writer.flushIfFull()
            }
        }
        summary.bytes = try writer.finish()
        return summary
    }

    /// One way of the grid: its nodes in order and its tags.
    struct Way: Sendable {
        var nodeIDs: [Int64]
        var tags: [(key: String, value: String)]
    }

    /// The ways of line `line` (a row when `horizontal`, else a column): the blocks that exist, cut into runs of
    /// 1…``longestWayBlocks`` blocks, each run one way. Adds the blocks left out to `missing`.
    func lineWays(_ line: Int, horizontal: Bool, random: inout SeededGenerator, missing: inout Int) -> [Way] {
        let blocks = side - 1
        let inner = line > 0 && line < side - 1
        let absent = (0..<blocks).map { _ in inner && Double.random(in: 0..<1, using: &random) < Self.missingBlockShare }
        missing += absent.filter { $0 }.count
        let lineClass = Self.lineClass(line)
        var ways: [Way] = []
        var start = 0
        while start < blocks {
            guard !absent[start] else { start += 1; continue }
            let wanted = Int.random(in: 1...Self.longestWayBlocks, using: &random)
            var end = start
            while end < blocks, end - start < wanted, !absent[end] { end += 1 }
            let nodes = (start...end).map { horizontal ? nodeID(row: line, column: $0) : nodeID(row: $0, column: line) }
            let tags = Self.tags(lineClass: lineClass, name: Self.lineName(line, horizontal: horizontal), blocks: end - start, random: &random)
            ways.append(Way(nodeIDs: nodes, tags: tags))
            start = end
        }
        return ways
    }
}
