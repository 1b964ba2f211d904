import Foundation
import Testing
@testable import RoadNetwork

/// Where a matched piece starts and ends (`docs/road-network.md`, "Map matching", "Ends"): from the fixes around each
/// end, not from the first or last fix alone.
@Suite("Map matching: a piece's ends placed from the fixes around them")
struct MapMatchEndsTests {
    static let router = RouteFixtures.kremsRouter

    static func metres(_ a: Coordinate2D, _ b: RoadPoint) -> Double {
        RoadGraphBuilder.distance((a.latitude, a.longitude), (b.latitude, b.longitude))
    }

    /// Metres from `point` to the polyline `line` (in a plane tangent at the point).
    static func distance(_ point: Coordinate2D, to line: [Coordinate2D]) -> Double {
        let scale = 6_371_008.8 * Double.pi / 180, xScale = scale * cos(point.latitude * .pi / 180)
        var best = Double.infinity
        for (a, b) in zip(line, line.dropFirst()) {
            let ax = (a.longitude - point.longitude) * xScale, ay = (a.latitude - point.latitude) * scale
            let dx = (b.longitude - a.longitude) * xScale, dy = (b.latitude - a.latitude) * scale
            let squared = dx * dx + dy * dy
            let t = squared > 0 ? min(max(-(ax * dx + ay * dy) / squared, 0), 1) : 0
            best = min(best, ((ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)).squareRoot())
        }
        return line.count == 1 ? RoadGraphBuilder.distance((point.latitude, point.longitude), (line[0].latitude, line[0].longitude)) : best
    }

    @Test("σ 10 m rides, with and without speeds: the ends lie nearer the true start and end than the first and last fix's projections, and the route mismatch is lower",
          arguments: [0.5, nil] as [Double?])
    func endsFromSeveralFixes(velocityNoise: Double?) throws {
        let router = try #require(Self.router)
        var off = MapMatchRules()
        off.endFixes = 0
        let refined = MapMatcher(router: router), single = MapMatcher(router: router, rules: off)
        // The simulator's rides run between two vertices (junctions): where the first fix's noise most often puts the
        // start on a crossing street.
        let rides = RideSimulator(router: router).rides(count: 12, length: 1_000...2_500,
                                                        settings: .init(noiseSigma: 10, velocityNoise: velocityNoise), seed: 4_242)
        try #require(rides.count == 12)
        var errors = (refined: [Double](), single: [Double]()), rmf = (refined: 0.0, single: 0.0)
        for ride in rides {
            let truth = ride.route.geometry
            for (matcher, isRefined) in [(refined, true), (single, false)] {
                let result = matcher.match(ride.observations)
                let first = try #require(result.pieces.first?.geometry.first), last = try #require(result.pieces.last?.geometry.last)
                let error = Self.metres(first, truth[0]) + Self.metres(last, truth[truth.count - 1])
                let mismatch = router.routeMismatch(truth: [ride.truth], matched: result.pieces.map(\.osmNodes))
                if isRefined { errors.refined.append(error); rmf.refined += mismatch } else { errors.single.append(error); rmf.single += mismatch }
                // Every placed fix lies on its piece, the refined ends included.
                for fix in result.fixes {
                    guard let position = fix.position, let piece = fix.piece else { continue }
                    #expect(Self.distance(position, to: result.pieces[piece].geometry) < 0.5)
                }
            }
        }
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        print("ends, velocity noise \(velocityNoise.map { "\($0)" } ?? "none"): start + end error \(mean(errors.refined)) m refined, \(mean(errors.single)) m from one fix; RMF \(rmf.refined / 12) against \(rmf.single / 12)")
        // Measured (seed 4 242): with speeds 14.9 m against 19.9 m, RMF 0.074 against 0.081; positions only 17.6 m against
        // 20.5 m, RMF 0.092 against 0.096. Where the first fix's street is not the ride's (a parallel way), no estimate
        // along the piece can help: those rides keep their error in both.
        #expect(mean(errors.refined) < (velocityNoise == nil ? 0.95 : 0.85) * mean(errors.single))
        #expect(rmf.refined < rmf.single)
    }

    @Test("a start or end estimate trims the stretches (dropping those left empty) or extends the first and last on their own edge, never beyond it")
    func trimming() throws {
        let router = try #require(Self.router)
        let graph = router.graph
        let lattice = MatchLattice([], index: router.snapIndex, rules: MapMatchRules())
        let assembly = router.trees.withTree { tree in
            MatchAssembly(lattice: lattice, fixes: [], transitions: MatchTransitions(graph: graph, costs: RoadWeights(matchingCostsOf: graph, exponent: 0.5),
                                                                                        rules: MapMatchRules(), tree: tree, plane: MatchPlane(graph: graph)))
        }
        // Two edges of at least 60 m, ridden from 10 m into the first to 20 m into the second.
        let long = (0..<graph.edgeCount).filter { graph.edgeLengths[$0] >= 60 }
        try #require(long.count >= 2)
        let (a, b) = (long[0], long[1])
        let travels = [MatchedTravel(edge: a, reversed: false, from: 10, to: graph.edgeLengths[a]), MatchedTravel(edge: b, reversed: false, from: 0, to: 20)]
        let total = graph.edgeLengths[a] - 10 + 20
        // Into the second stretch: the first is gone.
        let intoSecond = assembly.trimmed(travels, start: graph.edgeLengths[a] - 10 + 5, end: total, total: total)
        #expect(intoSecond.count == 1 && intoSecond[0].edge == b && abs(intoSecond[0].from - 5) < 1e-9 && intoSecond[0].to == 20)
        // Backwards 25 m: only the 10 m left on the first edge.
        let back = assembly.trimmed(travels, start: -25, end: total, total: total)
        #expect(back[0].from == 0 && back.count == 2)
        // Forwards past the end by 1,000 m: only as far as the last edge goes.
        let forward = assembly.trimmed(travels, start: 0, end: total + 1_000, total: total)
        #expect(forward[1].to == graph.edgeLengths[b] && forward[0].from == 10)
        // Both ends inward, within the first stretch.
        let inside = assembly.trimmed(travels, start: 3, end: 8, total: total)
        #expect(inside.count == 1 && inside[0].edge == a && abs(inside[0].from - 13) < 1e-9 && abs(inside[0].to - 18) < 1e-9)
    }
}
