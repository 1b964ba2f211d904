import Foundation
import Testing
@testable import RoadNetwork

/// Routes between coordinates under the main-network rule: a leg whose nearest edges do not connect starts or ends on
/// the main network instead, a leg that connects as snapped is never touched — on the hand-made city
/// (``MainNetworkFixture``) and on Krems.
@Suite("Routes snap onto the main network only where the nearest edges would not connect")
struct RouteMainNetworkTests {
    typealias City = MainNetworkFixture

    /// A point 2 m east of the north–south stub or street at `column`, `metres` north of the top row.
    static func northOfTop(column: Double, metres: Double) -> RoadPoint {
        RoadPoint(latitude: City.latitude(row: 10) + metres / 111_195, longitude: City.longitude(column: column) + 0.000027)
    }

    static let downtown = RoadPoint(latitude: City.latitude(row: 5) + 0.0001, longitude: City.longitude(column: 5.5))

    @Test("an origin on a one-way stub leading out of the main piece starts where the stub leaves it; as a destination it stays")
    func stubOut() throws {
        let router = try #require(City.router)
        let onStub = Self.northOfTop(column: 2, metres: 30)
        let route = try #require(try router.route(RouteRequest(origin: onStub, destination: Self.downtown)).routes.first)
        #expect(!route.nodeIDs.contains(9001))
        #expect(route.segments.first.map { $0.wayID < 9000 } == true)  // on a grid street, next to the stub's start
        let back = try #require(try router.route(RouteRequest(origin: Self.downtown, destination: onStub)).routes.first)
        #expect(back.segments.last?.wayID == 9100)
    }

    @Test("a destination on a one-way stub leading into the main piece ends where the stub joins it; as an origin it stays")
    func stubIn() throws {
        let router = try #require(City.router)
        let onStub = Self.northOfTop(column: 6, metres: 30)
        let route = try #require(try router.route(RouteRequest(origin: Self.downtown, destination: onStub)).routes.first)
        #expect(route.segments.allSatisfy { $0.wayID < 9000 })
        let out = try #require(try router.route(RouteRequest(origin: onStub, destination: Self.downtown)).routes.first)
        #expect(out.segments.first?.wayID == 9200)
    }

    @Test("a route inside an island, or from a feeder into a pocket it reaches, is left as snapped")
    func connectedLegsStay() throws {
        let router = try #require(City.router)
        let east = City.longitude(column: 10) + 0.001 + 0.00003
        let island = try #require(try router.route(RouteRequest(origin: RoadPoint(latitude: City.latitude(row: 2.2), longitude: east),
                                                                 destination: RoadPoint(latitude: City.latitude(row: 3.8), longitude: east))).routes.first)
        #expect(island.segments.map(\.wayID) == [9300])
        let feeder = RoadPoint(latitude: City.latitude(row: 0) - 0.0005 - 0.00002, longitude: City.longitude(column: 2.5))
        let pocket = Self.northOfTop(column: 9, metres: 55 + 2).with(longitude: City.longitude(column: 9.2))
        let ride = try #require(try router.route(RouteRequest(origin: feeder, destination: pocket)).routes.first)
        #expect(ride.segments.first?.wayID == 9400 && ride.segments.last?.wayID == 9500)
        let alongStub = try #require(try router.route(RouteRequest(origin: Self.northOfTop(column: 2, metres: 15),
                                                                    destination: Self.northOfTop(column: 2, metres: 35))).routes.first)
        #expect(alongStub.segments.map(\.wayID) == [9100])  // the stub cannot be left, but the leg stays on it
    }

    @Test("with no edge within the radius that connects, the nearest is kept and the answer is NoRoute; via points move too")
    func nothingNearConnects() throws {
        let router = try #require(City.router)
        let east = City.longitude(column: 10) + 0.001 + 0.00003
        let island = RoadPoint(latitude: City.latitude(row: 3), longitude: east)
        #expect(try router.route(RouteRequest(origin: island, destination: Self.downtown, snapRadius: 20)) == .noRoute(leg: 0))
        let moved = try #require(try router.route(RouteRequest(origin: island, destination: Self.downtown)).routes.first)
        #expect(moved.segments.allSatisfy { $0.wayID < 9000 })  // the grid's east column is 76 m away, within 200 m
        let via = try router.route(RouteRequest(origin: Self.downtown, destination: Self.downtown.with(longitude: 16.004),
                                                via: [Self.northOfTop(column: 2, metres: 30)]))
        let viaRoute = try #require(via.routes.first)
        #expect(!viaRoute.nodeIDs.contains(9001))  // the stub out cannot be left: the via point moves onto the grid
    }

    /// 200 random pairs over Krems' bounding box, 200 m snap radius: the answer with the nearest edges (the router's
    /// own leg search from them) against the router's. Every pair routed as snapped is routed the same; NoRoute goes
    /// down; each NoRoute left has an end with no edge within 200 m that connects with the main piece in its role.
    @Test("Krems, 200 random pairs: fewer NoRoute, every pair routed from the nearest edges unchanged")
    func krems() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let graph = router.graph
        var generator = SeededGenerator(seed: 19)
        let south = graph.shapeLatitudes.min()!, north = graph.shapeLatitudes.max()!
        let west = graph.shapeLongitudes.min()!, east = graph.shapeLongitudes.max()!
        var before = 0, after = 0, pairs = 0, differentPieces = 0, stuck = [0, 0]
        while pairs < 200 {
            let a = RoadPoint(latitude: .random(in: south...north, using: &generator), longitude: .random(in: west...east, using: &generator))
            let b = RoadPoint(latitude: .random(in: south...north, using: &generator), longitude: .random(in: west...east, using: &generator))
            guard let nearestA = router.snapIndex.nearest(latitude: a.latitude, longitude: a.longitude, radius: 200),
                  let nearestB = router.snapIndex.nearest(latitude: b.latitude, longitude: b.longitude, radius: 200) else { continue }
            pairs += 1
            let pieceA = router.components.component(ofVertex: Int(graph.edgeSources[nearestA.edge]))
            if pieceA != router.components.component(ofVertex: Int(graph.edgeSources[nearestB.edge])) { differentPieces += 1 }
            let asSnapped = router.bestLeg(router.legEnds(from: nearestA, to: nearestB, weights: router.baseWeights), weights: router.baseWeights)
            let result = try router.route(RouteRequest(origin: a, destination: b))
            if let pieces = asSnapped.pieces {
                #expect(try router.snap([a, b], radius: 200) == [nearestA, nearestB])
                #expect(RouteFixtures.same(result.routes.first?.weight ?? .infinity, pieces.reduce(0) { $0 + $1.weight }))
            } else {
                before += 1
            }
            guard case .noRoute = result else { continue }
            after += 1
            let snaps = try router.snap([a, b], radius: 200)
            let originStuck = !router.connectsWithMain(snaps[0], as: .origin), destinationStuck = !router.connectsWithMain(snaps[1], as: .destination)
            #expect(originStuck || destinationStuck)
            stuck[0] += originStuck ? 1 : 0
            stuck[1] += destinationStuck ? 1 : 0
        }
        print("Krems, 200 random pairs: nearest edges in different strong pieces \(differentPieces), NoRoute with the nearest "
            + "edges \(before), with the main-network rule \(after) (\(router.components.count) pieces, largest "
            + "\(router.components.sizes.max() ?? 0) vertices); left: no edge within 200 m that connects for the origin \(stuck[0]) "
            + "times, for the destination \(stuck[1])")
        #expect(after < before)
    }

    /// The pgRouting oracle's kind of request: the coordinates of two vertices. Whenever a route joins the vertices,
    /// the rule leaves both snaps as they are, so the router answers as before.
    @Test("vertex coordinates: wherever Dijkstra routes vertex to vertex, the snaps are the nearest edges")
    func vertexPairsUntouched() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let graph = router.graph, dijkstra = ShortestPaths(graph: graph)
        var generator = SeededGenerator(seed: 18_001)
        var checked = 0
        for _ in 0..<60 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let weights = dijkstra.weights(from: source)
            for _ in 0..<10 {
                let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
                guard target != source, weights[target].isFinite else { continue }
                let points = [source, target].map { RoadPoint(latitude: graph.vertexLatitudes[$0], longitude: graph.vertexLongitudes[$0]) }
                let nearest = points.map { router.snapIndex.nearest(latitude: $0.latitude, longitude: $0.longitude, radius: 200) }
                #expect(try router.snap(points, radius: 200) == nearest.compactMap { $0 }, "\(source) → \(target)")
                checked += 1
            }
        }
        #expect(checked > 400)
    }
}

extension RoadPoint {
    /// The same latitude at another longitude.
    func with(longitude: Double) -> RoadPoint { RoadPoint(latitude: latitude, longitude: longitude) }
}
