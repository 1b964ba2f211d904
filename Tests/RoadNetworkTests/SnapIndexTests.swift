import Foundation
import Testing
@testable import RoadNetwork

@Suite("Snapping to the road graph")
struct SnapIndexTests {
    static let names = ["Krems", "Monaco", "Helsinki"]
    /// The three real extracts' graphs, built once for the suite (`nil`: the extract did not build).
    static let graphs: [RoadGraph?] = [OSMFixtures.krems, OSMFixtures.monaco, OSMFixtures.helsinki].map {
        try? RoadGraphBuilder().build([$0]).graph
    }

    static func city(_ index: Int) throws -> RoadGraph { try #require(graphs[index], "\(names[index]) did not build") }
    static func helsinki() throws -> RoadGraph { try city(2) }

    @Test("the nearest edge is brute force's at 400 seeded points per city: near streets, anywhere in and around the extract",
          arguments: 0..<3)
    func nearestMatchesBruteForce(city: Int) throws {
        let graph = try Self.city(city)
        let index = SnapIndex(graph: graph)
        var generator = SeededGenerator(seed: 1_818 + UInt64(city))
        var points = (0..<200).map { _ in Self.pointNear(graph, within: 100, using: &generator) }
        points += (0..<200).map { _ in Self.pointAround(graph, margin: 0.01, using: &generator) }
        for (latitude, longitude) in points {
            try Self.expectBruteForce(index, latitude: latitude, longitude: longitude, radii: [50, 200, 1_000], Self.names[city])
        }
    }

    @Test("points on and a hair either side of cell borders and corners snap as brute force does")
    func cellBorders() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        let grid = index.grid
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<60 {
            let row = Int.random(in: 0...grid.rows, using: &generator), column = Int.random(in: 0...grid.columns, using: &generator)
            let latitude = grid.south + Double(row) * grid.cellLatitude, longitude = grid.west + Double(column) * grid.cellLongitude
            let along = (Double.random(in: 0..<1, using: &generator), Double.random(in: 0..<1, using: &generator))
            for nudge in [0, 1e-12, -1e-12, 1e-9, -1e-9] {
                let onRow = (latitude + nudge, grid.west + (Double(column) + along.1) * grid.cellLongitude)
                let onColumn = (grid.south + (Double(row) + along.0) * grid.cellLatitude, longitude + nudge)
                for (lat, lon) in [onRow, onColumn, (latitude + nudge, longitude - nudge)] {
                    try Self.expectBruteForce(index, latitude: lat, longitude: lon, radii: [200], "border")
                }
            }
        }
    }

    @Test("far from every street: no snap within the radius, brute force's answer with a wide one")
    func farFromStreets() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        #expect(index.nearest(latitude: 60.10, longitude: 24.94, radius: 200) == nil)  // in the sea, 6 km south
        for (latitude, longitude) in [(60.10, 24.94), (60.30, 25.20), (59.0, 24.0), (61.5, 26.5), (89.99, 24.9), (90, 0)] {
            try Self.expectBruteForce(index, latitude: latitude, longitude: longitude, radii: [200, 10_000, 500_000, 1e7], "far")
        }
    }

    @Test("k candidates are brute force's k nearest edges, one snap per edge, nearest first", arguments: 0..<3)
    func candidatesMatchBruteForce(city: Int) throws {
        let graph = try Self.city(city)
        let index = SnapIndex(graph: graph)
        var generator = SeededGenerator(seed: 2_018 + UInt64(city))
        for _ in 0..<60 {
            let (latitude, longitude) = Self.pointNear(graph, within: 150, using: &generator)
            for limit in [1, 5, 64] {
                let found = index.candidates(latitude: latitude, longitude: longitude, radius: 250, limit: limit)
                let expected = SnapBruteForce.candidates(graph, latitude: latitude, longitude: longitude, radius: 250, limit: limit)
                #expect(found.count == expected.count, "\(limit) at \(latitude), \(longitude)")
                for (snap, reference) in zip(found, expected) { Self.expectSame(snap, reference, among: expected) }
                #expect(Set(found.map(\.edge)).count == found.count)
            }
        }
    }

    @Test("any cell size gives the same answers: from 10 m to one cell for the whole city")
    func cellSizes() throws {
        let graph = try Self.city(0)
        var generator = SeededGenerator(seed: 5)
        let points = (0..<60).map { _ in Self.pointNear(graph, within: 120, using: &generator) }
        for cellDegrees in [0.000_09, 0.000_5, 0.002, 0.05, 1] {
            let index = SnapIndex(graph: graph, cellDegrees: cellDegrees)
            for (latitude, longitude) in points {
                try Self.expectBruteForce(index, latitude: latitude, longitude: longitude, radii: [200], "cell \(cellDegrees)°")
            }
        }
    }

    @Test("cells are sized from the data: about two per segment, square in metres, each segment entered at least once", arguments: 0..<3)
    func cellsFromData(city: Int) throws {
        let graph = try Self.city(city)
        let grid = SnapIndex(graph: graph).grid
        let segments = graph.shapeLatitudes.count - graph.edgeCount
        let cells = Double(grid.rows * grid.columns), height = grid.cellLatitude * SnapIndex.metresPerDegree
        let width = grid.cellLongitude * SnapIndex.metresPerDegree * cos((grid.south + Double(grid.rows) * grid.cellLatitude / 2) * .pi / 180)
        print("\(Self.names[city]): \(segments) segments, \(grid.rows) × \(grid.columns) cells of \(height) m × \(width) m, \(grid.entries.count) entries")
        #expect(cells >= 2 * Double(segments) && cells <= 2.5 * Double(segments))
        #expect(abs(width - height) < 0.01 * height)
        #expect(Set(grid.entries).count == segments && grid.entries.count <= 3 * segments)
        #expect(grid.cellStarts.count == grid.rows * grid.columns + 1)
    }

    /// Krems and Monaco in one graph: two towns 800 km apart.
    static let twoTowns: RoadGraph? = try? RoadGraphBuilder().build([OSMFixtures.krems, OSMFixtures.monaco]).graph

    @Test("extracts far apart: cells sized for the towns, not the box between them (sparse), and every answer brute force's — near streets, between the towns, at any radius")
    func extractsFarApart() throws {
        let graph = try #require(Self.twoTowns)
        let index = SnapIndex(graph: graph), grid = index.grid
        let krems = SnapIndex(graph: try Self.city(0)).grid
        let sparse = try #require(grid.sparse, "a box 800 km across holding two towns is stored sparse")
        // Cells about as fine as one town's own (a bounding-box sizing would give cells ~1 km wide).
        #expect(grid.cellLatitude < 2 * krems.cellLatitude && grid.cellLatitude > krems.cellLatitude / 4,
                "\(grid.cellLatitude * SnapIndex.metresPerDegree) m against Krems' \(krems.cellLatitude * SnapIndex.metresPerDegree) m")
        let segments = graph.shapeLatitudes.count - graph.edgeCount
        #expect(Set(grid.entries).count == segments)
        #expect(sparse.cells.count < 4 * segments && grid.cellStarts.count == sparse.cells.count + 1)
        print("two towns: \(segments) segments, \(grid.rows) × \(grid.columns) cells of \(grid.cellLatitude * SnapIndex.metresPerDegree) m, \(sparse.cells.count) occupied")
        var generator = SeededGenerator(seed: 4_242)
        var points = (0..<150).map { _ in Self.pointNear(graph, within: 100, using: &generator) }
        points += (0..<40).map { _ in Self.pointAround(graph, margin: 0.01, using: &generator) }  // mostly far from both
        points += [(46.0, 11.5), (48.41, 15.0), (43.73, 7.5), (43.70, 7.42), (48.40, 15.60)]  // the Alps, west of Krems, the sea
        for (latitude, longitude) in points {
            try Self.expectBruteForce(index, latitude: latitude, longitude: longitude, radii: [50, 2_000, 1e7], "two towns")
        }
        for _ in 0..<30 {
            let (latitude, longitude) = Self.pointNear(graph, within: 150, using: &generator)
            let found = index.candidates(latitude: latitude, longitude: longitude, radius: 250, limit: 5)
            let expected = SnapBruteForce.candidates(graph, latitude: latitude, longitude: longitude, radius: 250, limit: 5)
            #expect(found.count == expected.count)
            for (snap, reference) in zip(found, expected) { Self.expectSame(snap, reference, among: expected) }
            let within = index.edges(within: 60, latitude: latitude, longitude: longitude)
            let all = SnapBruteForce.candidates(graph, latitude: latitude, longitude: longitude, radius: 60, limit: .max)
            #expect(within.map(\.edge) == all.map(\.edge))
        }
    }

    @Test("no snap for a coordinate off the globe, a non-finite or negative radius, no candidates for a limit of 0")
    func invalidInput() throws {
        let index = SnapIndex(graph: try Self.helsinki())
        for (latitude, longitude) in [(Double.nan, 24.94), (60.17, .infinity), (91, 24.94), (60.17, -181), (1e300, 1e300)] {
            #expect(index.nearest(latitude: latitude, longitude: longitude, radius: 200) == nil)
        }
        for radius in [-1, Double.nan, .infinity] { #expect(index.nearest(latitude: 60.17, longitude: 24.94, radius: radius) == nil) }
        #expect(index.candidates(latitude: 60.17, longitude: 24.94, radius: 200, limit: 0).isEmpty)
        #expect(index.nearest(latitude: -90, longitude: -180, radius: 1_000) == nil)  // the pole: far, and no crash
    }

    @Test("a point on a vertex snaps to it with distance zero")
    func onVertex() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        let vertex = graph.vertexCount / 2
        let snap = try #require(index.nearest(latitude: graph.vertexLatitudes[vertex], longitude: graph.vertexLongitudes[vertex], radius: 10))
        #expect(snap.distance < 1e-6)
    }

    /// `index`'s nearest snap within each of `radii` equals brute force's: both none, or the same distance (1e-6 m),
    /// the same edge unless another edge is as near, and then the same point and offset. (Brute force runs once, with
    /// the widest radius: the nearest within a smaller one is that one or none.)
    static func expectBruteForce(_ index: SnapIndex, latitude: Double, longitude: Double, radii: [Double], _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let widest = SnapBruteForce.candidates(index.graph, latitude: latitude, longitude: longitude, radius: radii.max()!, limit: 2)
        for radius in radii {
            let snap = index.nearest(latitude: latitude, longitude: longitude, radius: radius)
            let expected = widest.filter { $0.distance <= radius }
            #expect((snap == nil) == expected.isEmpty, "\(label) at \(latitude), \(longitude), radius \(radius)", sourceLocation: sourceLocation)
            guard let snap, let reference = expected.first else { continue }
            expectSame(snap, reference, among: expected, sourceLocation: sourceLocation)
        }
    }

    /// The same snap as `reference` (distance within 1e-6 m); another edge of `among` as near counts as a tie.
    static func expectSame(_ snap: SnapIndex.Snap, _ reference: SnapIndex.Snap, among: [SnapIndex.Snap],
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(snap.distance - reference.distance) < 1e-6, "\(snap) vs \(reference)", sourceLocation: sourceLocation)
        let tied = among.contains { $0.edge == snap.edge && abs($0.distance - snap.distance) < 1e-6 }
        #expect(snap.edge == reference.edge || tied, "\(snap) vs \(reference)", sourceLocation: sourceLocation)
        guard snap.edge == reference.edge, snap.segment == reference.segment else { return }
        #expect(abs(snap.offset - reference.offset) < 1e-6 && abs(snap.latitude - reference.latitude) < 1e-9
                && abs(snap.longitude - reference.longitude) < 1e-9, "\(snap) vs \(reference)", sourceLocation: sourceLocation)
    }

    /// A point 0…`radius` metres from a random shape point (the benchmark's workload), as a local offset.
    static func pointNear(_ graph: RoadGraph, within radius: Double, using generator: inout SeededGenerator) -> (Double, Double) {
        let point = Int.random(in: 0..<graph.shapeLatitudes.count, using: &generator)
        let bearing = Double.random(in: 0..<(2 * .pi), using: &generator), distance = Double.random(in: 0...radius, using: &generator)
        let latitude = graph.shapeLatitudes[point] + distance * cos(bearing) / SnapIndex.metresPerDegree
        let longitude = graph.shapeLongitudes[point]
            + distance * sin(bearing) / (SnapIndex.metresPerDegree * cos(graph.shapeLatitudes[point] * .pi / 180))
        return (latitude, longitude)
    }

    /// A point anywhere in the graph's bounding box widened by `margin` degrees.
    static func pointAround(_ graph: RoadGraph, margin: Double, using generator: inout SeededGenerator) -> (Double, Double) {
        let latitudes = graph.shapeLatitudes, longitudes = graph.shapeLongitudes
        return (Double.random(in: (latitudes.min()! - margin)...(latitudes.max()! + margin), using: &generator),
                Double.random(in: (longitudes.min()! - margin)...(longitudes.max()! + margin), using: &generator))
    }
}
