import Foundation
import Testing
@testable import RoadNetwork

/// Routes on a tiny hand-made network with known answers: a two-way street 1–2–3, a one-way street 3 → 5 and a
/// separate street 8–9 far away.
@Suite("Part-way routes, via points and overlays on a hand-made network")
struct RoutePartWayTests {
    static let line = """
        <osm version="0.6">
          <node id="1" lat="48.0" lon="16.000"/>
          <node id="2" lat="48.0" lon="16.001"/>
          <node id="3" lat="48.0" lon="16.002"/>
          <node id="5" lat="48.0" lon="16.003"/>
          <node id="8" lat="48.1" lon="16.100"/>
          <node id="9" lat="48.1" lon="16.101"/>
          <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way>
          <way id="11"><nd ref="3"/><nd ref="5"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
          <way id="12"><nd ref="8"/><nd ref="9"/><tag k="highway" v="residential"/></way>
        </osm>
        """
    static let router: RoadRouter? = (try? RouteFixtures.graph(line)).map { RoadRouter(graph: $0) }

    /// A point 1 m north of the street at `longitude` (the street runs along 48° N).
    static func at(_ longitude: Double) -> RoadPoint { RoadPoint(latitude: 48.000009, longitude: longitude) }
    /// Metres along 48° N between two longitudes.
    static func metres(_ a: Double, _ b: Double) -> Double { RoadGraphBuilder.distance((48.0, a), (48.0, b)) }
    /// Residential: preference 1.2 at cruising speed.
    static let perMetre = 1 / 1.2

    @Test("origin and destination on one edge: the piece between them, either way, cut at the snapped points")
    func sameEdge() throws {
        let router = try #require(Self.router)
        let route = try #require(try router.route(RouteRequest(origin: Self.at(16.0005), destination: Self.at(16.0015))).routes.first)
        let length = Self.metres(16.0005, 16.0015)
        #expect(route.segments.count == 1)
        #expect(abs(route.distance - length) < 0.01)
        #expect(abs(route.weight - length * Self.perMetre) < 0.01)
        #expect(abs(route.duration - length * 3.6 / 18) < 0.01)
        #expect(route.segments[0].wayID == 10 && !route.segments[0].reversed)
        #expect(route.nodeIDs == [1, 2, 3])
        #expect(route.geometry.count == 3 && route.geometry[1] == RoadPoint(latitude: 48.0, longitude: 16.001))
        #expect(abs(route.geometry[0].longitude - 16.0005) < 1e-7 && abs(route.geometry[2].longitude - 16.0015) < 1e-7)
        let back = try #require(try router.route(RouteRequest(origin: Self.at(16.0015), destination: Self.at(16.0005))).routes.first)
        #expect(back.segments[0].reversed && back.nodeIDs == [3, 2, 1] && abs(back.distance - length) < 0.01)
    }

    @Test("across a vertex onto a one-way street; against it there is no route, a typed result")
    func oneWay() throws {
        let router = try #require(Self.router)
        let route = try #require(try router.route(RouteRequest(origin: Self.at(16.0005), destination: Self.at(16.0025))).routes.first)
        #expect(route.segments.map(\.wayID) == [10, 11])
        #expect(route.segments.map(\.nodeIDs) == [[1, 2, 3], [3, 5]])
        #expect(abs(route.distance - Self.metres(16.0005, 16.0025)) < 0.01)
        // Against the one-way street, with no other street within the snap radius: no route.
        #expect(try router.route(RouteRequest(origin: Self.at(16.0028), destination: Self.at(16.0022), snapRadius: 10)) == .noRoute(leg: 0))
        #expect(try router.route(RouteRequest(origin: Self.at(16.0025), destination: Self.at(16.0005), snapRadius: 10)) == .noRoute(leg: 0))
        // With street 10 within the radius, an origin on the one-way street (whose dead end 5 leads nowhere) starts at
        // node 3 instead, the nearest point that can ride on (RoadComponents): then along the one-way street.
        let moved = try #require(try router.route(RouteRequest(origin: Self.at(16.0028), destination: Self.at(16.0022))).routes.first)
        #expect(moved.segments.map(\.wayID) == [11] && abs(moved.distance - Self.metres(16.002, 16.0022)) < 0.01)
        let back = try #require(try router.route(RouteRequest(origin: Self.at(16.0025), destination: Self.at(16.0005))).routes.first)
        #expect(back.segments.map(\.wayID) == [10] && abs(back.distance - Self.metres(16.002, 16.0005)) < 0.01)
        let far = RoadPoint(latitude: 48.100009, longitude: 16.1005)
        #expect(try router.route(RouteRequest(origin: Self.at(16.0005), destination: far)) == .noRoute(leg: 0))
        #expect(try router.route(RouteRequest(origin: Self.at(16.0005), destination: Self.at(16.0015), via: [far])) == .noRoute(leg: 0))
    }

    @Test("a via point: the legs follow each other, turning back on the edge where the via point lies")
    func via() throws {
        let router = try #require(Self.router)
        let request = RouteRequest(origin: Self.at(16.0005), destination: Self.at(16.0002), via: [Self.at(16.0015)])
        let route = try #require(try router.route(request).routes.first)
        let length = Self.metres(16.0005, 16.0015) + Self.metres(16.0015, 16.0002)
        #expect(abs(route.distance - length) < 0.01)
        #expect(abs(route.weight - length * Self.perMetre) < 0.01)
        #expect(route.segments.map(\.reversed) == [false, true])
    }

    @Test("an overlay raises the weight of the segments it names, in their direction only, pro rata on pieces")
    func overlay() throws {
        let router = try #require(Self.router)
        let overlay = try CostOverlay([.init(from: 1, to: 2): .init(factor: 2), .init(from: 2, to: 3): .init(penalty: 100),
                                       .init(from: 1, to: 3): .init(penalty: 5)])
        let weights = router.weights(for: overlay)
        #expect(weights.unmatchedPairs == 1)  // 1 → 3 is no segment
        let edge = try #require((0..<router.graph.edgeCount).first { router.graph.ways[Int(router.graph.edgeWays[$0])].osmID == 10 })
        let first = Self.metres(16.000, 16.001), second = Self.metres(16.001, 16.002)
        #expect(abs(weights.forward[edge] - ((first * 2 + second) * Self.perMetre + 100)) < 1e-6)
        #expect(weights.backward[edge] == router.graph.edgeBackwardWeights[edge])
        let request = RouteRequest(origin: Self.at(16.0005), destination: Self.at(16.0015))
        let route = try #require(try router.route(request, weights: weights).routes.first)
        let half1 = Self.metres(16.0005, 16.001), half2 = Self.metres(16.001, 16.0015)
        #expect(abs(route.weight - ((half1 * 2 + half2) * Self.perMetre + 100 * half2 / second)) < 0.01)
        #expect(abs(route.distance - (half1 + half2)) < 0.01)  // distance and duration do not change
        let back = try #require(try router.route(RouteRequest(origin: Self.at(16.0015), destination: Self.at(16.0005)), weights: weights).routes.first)
        #expect(abs(back.weight - (half1 + half2) * Self.perMetre) < 0.01)
        // The two pieces of an edge cut anywhere weigh the whole edge.
        for cut in stride(from: 0.0, through: first + second, by: 13.7) {
            let pieces = weights.pieceWeight(router.graph, edge: edge, from: 0, to: cut) + weights.pieceWeight(router.graph, edge: edge, from: cut, to: first + second)
            #expect(abs(pieces - weights.forward[edge]) < 1e-6)
        }
        #expect(router.weights(for: .empty).forward == router.graph.edgeForwardWeights)
    }

    @Test("an overlay that would lower a weight, or names no segment, is a typed error")
    func overlayErrors() {
        let pair = CostOverlay.NodePair(from: 1, to: 2)
        #expect(throws: CostOverlayError.invalidFactor(pair, 0.4)) { try CostOverlay([pair: .init(factor: 0.4)]) }
        #expect(throws: CostOverlayError.self) { try CostOverlay([pair: .init(factor: .nan)]) }
        #expect(throws: CostOverlayError.self) { try CostOverlay([pair: .init(factor: .infinity)]) }
        #expect(throws: CostOverlayError.invalidPenalty(pair, -1)) { try CostOverlay([pair: .init(penalty: -1)]) }
        #expect(throws: CostOverlayError.self) { try CostOverlay([pair: .init(penalty: .infinity)]) }
        #expect(throws: CostOverlayError.samePairNode(.init(from: 4, to: 4))) { try CostOverlay([.init(from: 4, to: 4): .init()]) }
        #expect(CostOverlay.empty.isEmpty)
    }

    @Test("bad input gives typed errors: NaN, out of range, no street near, the same point, too many via points")
    func badInput() throws {
        let router = try #require(Self.router)
        let good = Self.at(16.0005), other = Self.at(16.0015)
        func error(_ request: RouteRequest, weights: RoadWeights? = nil) -> RouteError? {
            do { _ = try router.route(request, weights: weights); return nil } catch { return error }
        }
        #expect(error(RouteRequest(origin: RoadPoint(latitude: .nan, longitude: 16), destination: other)) == .invalidCoordinate(index: 0, reason: .nonFinite))
        #expect(error(RouteRequest(origin: good, destination: RoadPoint(latitude: 91, longitude: 16))) == .invalidCoordinate(index: 1, reason: .latitudeOutOfRange(91)))
        #expect(error(RouteRequest(origin: good, destination: other, via: [RoadPoint(latitude: 48, longitude: -181)])) == .invalidCoordinate(index: 1, reason: .longitudeOutOfRange(-181)))
        #expect(error(RouteRequest(origin: good, destination: RoadPoint(latitude: 43.5, longitude: 7.6))) == .noStreetNear(index: 1))  // the sea off Monaco
        #expect(error(RouteRequest(origin: good, destination: good)) == .coincidentPoints(leg: 0))
        #expect(error(RouteRequest(origin: good, destination: RoadPoint(latitude: 47.99999, longitude: 16.0005))) == .coincidentPoints(leg: 0))
        #expect(error(RouteRequest(origin: good, destination: other, via: [other])) == .coincidentPoints(leg: 1))
        let fifty = (0..<50).map { Self.at(16.0001 + Double($0) * 0.00003) }
        #expect(error(RouteRequest(origin: good, destination: other, via: fifty)) == .tooManyViaPoints(count: 50, limit: 25))
        #expect(error(RouteRequest(origin: good, destination: other, alternatives: 3)) == .invalidAlternativeCount(3))
        #expect(error(RouteRequest(origin: good, destination: other, alternatives: -1)) == .invalidAlternativeCount(-1))
        #expect(error(RouteRequest(origin: good, destination: other, snapRadius: 0)) == .invalidSnapRadius(0))
        #expect(error(RouteRequest(origin: good, destination: other, snapRadius: .infinity)) == .invalidSnapRadius(.infinity))
        let foreign = try #require(RouteFixtures.monacoRouter).baseWeights
        #expect(error(RouteRequest(origin: good, destination: other), weights: foreign) == .weightsForAnotherGraph)
        #expect(router.route(fromVertex: -1, toVertex: 0) == nil && router.route(fromVertex: 0, toVertex: 1_000) == nil)
        let twentyFive = (0..<25).map { Self.at(16.0001 + Double($0) * 0.00007) }
        #expect(try router.route(RouteRequest(origin: good, destination: other, via: twentyFive)).routes.count == 1)
    }
}
