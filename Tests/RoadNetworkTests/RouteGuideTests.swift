import Foundation
@testable import RoadNetwork
import Testing

/// Steps and instructions on real streets of the three cities. Ground truth made from the graph itself, not by the
/// guide: junctions where a route runs exactly along two nearly straight edges (every shape point within 2 m of the
/// edge's chord), so the true change of bearing is the angle between the two chords (a flat-earth azimuth computed
/// here); the expected maneuver follows from that angle and the two ways' names by the documented rules. Angles within
/// 4° of a band's edge are left out (the guide measures 20 m along the shape, the test the whole chord).
@Suite("Route guidance: steps and instructions on real streets")
struct RouteGuideTests {
    static let helsinkiGraph: RoadGraph? = try? RoadGraphBuilder().build([OSMFixtures.helsinki]).graph

    struct Case {
        var from: Int, via: Int, to: Int
        var inEdge: Int, outEdge: Int
        var angle: Double
        var sameRoad: Bool
        var junction: Bool
    }

    /// Flat-earth azimuth, degrees clockwise from north.
    static func azimuth(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let dx = (b.1 - a.1) * cos((a.0 + b.0) / 2 * .pi / 180), dy = b.0 - a.0
        let degrees = atan2(dx, dy) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// Whether every shape point lies within 2 m of the chord, and the edge is 30–400 m long.
    static func straight(_ graph: RoadGraph, _ edge: Int) -> Bool {
        let shape = graph.shape(of: edge)
        guard let first = shape.first, let last = shape.last, (30...400).contains(graph.edgeLengths[edge]) else { return false }
        let k = 111_195.0, c = cos(first.latitude * .pi / 180)
        let (bx, by) = ((last.longitude - first.longitude) * k * c, (last.latitude - first.latitude) * k)
        let length = hypot(bx, by)
        guard length > 1 else { return false }
        return shape.allSatisfy { point in
            let (px, py) = ((point.longitude - first.longitude) * k * c, (point.latitude - first.latitude) * k)
            return abs(px * by - py * bx) / length <= 2
        }
    }

    static func name(_ graph: RoadGraph, _ edge: Int) -> String? {
        let way = graph.ways[Int(graph.edgeWays[edge])]
        return way.name ?? way.ref
    }

    /// Up to `limit` junction cases of `graph`, vertices in order.
    static func cases(_ graph: RoadGraph, limit: Int) -> [Case] {
        var found: [Case] = []
        let point = { (v: Int) in (graph.vertexLatitudes[v], graph.vertexLongitudes[v]) }
        for via in 0..<graph.vertexCount where found.count < limit {
            let arcs = graph.outgoing(from: via)
            let distinctEdges = Set(arcs.map(\.edge))
            guard distinctEdges.count >= 3 else { continue }
            for out in arcs where found.count < limit && straight(graph, out.edge) && name(graph, out.edge) != nil {
                for back in arcs where back.edge != out.edge && straight(graph, back.edge) && name(graph, back.edge) != nil {
                    // Arriving along `back.edge` from its far end.
                    let from = back.to
                    guard graph.outgoing(from: from).contains(where: { $0.edge == back.edge && $0.to == via }) else { continue }
                    let angle = RouteGuide.turn(from: azimuth(point(from), point(via)), to: azimuth(point(via), point(out.to)))
                    let edgesOfBands: [Double] = [25, 45, 60, 130, 170]
                    guard edgesOfBands.allSatisfy({ abs(abs(angle) - $0) > 4 }) else { continue }
                    found.append(Case(from: from, via: via, to: out.to, inEdge: back.edge, outEdge: out.edge, angle: angle,
                                      sameRoad: name(graph, back.edge) == name(graph, out.edge), junction: true))
                    break
                }
            }
        }
        return found
    }

    static func check(_ graph: RoadGraph, city: String) throws {
        let router = RoadRouter(graph: graph)
        let guide = RouteGuide(graph: graph)
        var checked = 0, turns = 0
        for junction in cases(graph, limit: 400) {
            guard let route = router.route(fromVertex: junction.from, toVertex: junction.to),
                  route.segments.map(\.edge) == [junction.inEdge, junction.outEdge] else { continue }
            checked += 1
            let steps = try #require(guide.steps(of: route).first)
            #expect(steps.first?.maneuver.kind == .depart && steps.last?.maneuver.kind == .arrive)
            #expect(abs(steps.reduce(0) { $0 + $1.distance } - route.distance) < 1e-6, "steps add up to the route")
            let middle = steps.dropFirst().dropLast()
            let expected: RouteManeuver.Kind? = junction.sameRoad ? (abs(junction.angle) >= RouteGuide.sameRoadTurnDegrees ? .turn : nil)
                : (abs(junction.angle) < RouteGuide.straightDegrees ? .continue : .turn)
            guard let kind = expected else {
                #expect(middle.isEmpty, "\(city): the same road bending \(junction.angle)° needs no step")
                continue
            }
            let step = try #require(middle.first, "\(city): a step at vertex \(junction.via) (angle \(junction.angle))")
            #expect(middle.count == 1)
            #expect(step.maneuver.kind == kind, "\(city) v\(junction.via): \(step.maneuver.kind) for \(junction.angle)°")
            #expect(step.maneuver.modifier == RouteGuide.modifier(turning: junction.angle), "\(city) v\(junction.via): angle \(junction.angle)")
            #expect(step.name == (graph.ways[Int(graph.edgeWays[junction.outEdge])].name ?? ""))
            if kind == .turn { turns += 1 }
            let text = StepInstructions.text(step, language: .en)
            if step.maneuver.modifier == .left { #expect(text.hasPrefix("Turn left")) }
            if step.maneuver.modifier == .right { #expect(StepInstructions.text(step, language: .de).hasPrefix("Rechts abbiegen")) }
        }
        print("route guidance, \(city): \(checked) junctions checked, \(turns) turns")
        #expect(checked >= 10, "\(city): only \(checked) junctions checked")
        #expect(turns >= 3, "\(city): only \(turns) turns among them")
    }

    @Test("Krems: turns, continues and bends at junctions match the chords' angles")
    func krems() throws {
        try Self.check(try #require(RouteFixtures.kremsGraph), city: "Krems")
    }

    @Test("Monaco: the same")
    func monaco() throws {
        try Self.check(try #require(RouteFixtures.monacoGraph), city: "Monaco")
    }

    @Test("Helsinki: the same")
    func helsinki() throws {
        try Self.check(try #require(Self.helsinkiGraph), city: "Helsinki")
    }

    @Test("a whole route: depart, arrive, steps in order adding up; via points make legs")
    func wholeRoute() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        let router = RoadRouter(graph: graph)
        let guide = RouteGuide(graph: graph)
        var generator = SeededGenerator(seed: 21)
        var routes = 0
        while routes < 30 {
            let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
            guard a != b, let route = router.route(fromVertex: a, toVertex: b), route.segments.count >= 2 else { continue }
            routes += 1
            let legs = guide.steps(of: route, legs: [1, route.segments.count - 1])
            #expect(legs.count == 2 && legs.allSatisfy { $0.first?.maneuver.kind == .depart && $0.last?.maneuver.kind == .arrive })
            #expect(abs(legs.joined().reduce(0) { $0 + $1.distance } - route.distance) < 1e-6)
            let steps = try #require(guide.steps(of: route).first)
            for (previous, next) in zip(steps, steps.dropFirst()) where next.maneuver.kind != .arrive {
                #expect(previous.geometry.last == next.geometry.first, "each step starts where the one before ends")
            }
            #expect(StepInstructions.text(steps.last!, language: .en) == "You have arrived at your destination")
            #expect(StepInstructions.text(legs[0].last!, language: .de, finalArrival: false) == "Sie haben Ihren Zwischenhalt erreicht")
        }
    }

    @Test("words: turns, continue, depart by compass, arrive, in English and German; unnamed ways")
    func words() {
        func step(_ kind: RouteManeuver.Kind, _ modifier: RouteManeuver.Modifier?, name: String, bearing: Int = 90) -> RouteStep {
            RouteStep(maneuver: RouteManeuver(kind: kind, modifier: modifier, location: RoadPoint(latitude: 48.4, longitude: 15.6), bearingBefore: 0,
                                              bearingAfter: bearing),
                      name: name, ref: nil, wayClass: "residential", distance: 100, duration: 20, weight: 100, geometry: [])
        }
        #expect(StepInstructions.text(step(.turn, .left, name: "Ringstraße"), language: .en) == "Turn left onto Ringstraße")
        #expect(StepInstructions.text(step(.turn, .left, name: "Ringstraße"), language: .de) == "Links abbiegen auf Ringstraße")
        #expect(StepInstructions.text(step(.turn, .slightRight, name: ""), language: .en) == "Bear right")
        #expect(StepInstructions.text(step(.continue, .straight, name: "Donaulände"), language: .en) == "Continue onto Donaulände")
        #expect(StepInstructions.text(step(.continue, .straight, name: "Donaulände"), language: .de) == "Weiter auf Donaulände")
        #expect(StepInstructions.text(step(.depart, nil, name: "Hafenstraße", bearing: 180), language: .en) == "Head south on Hafenstraße")
        #expect(StepInstructions.text(step(.depart, nil, name: "Hafenstraße", bearing: 44), language: .de) == "Fahren Sie Richtung Nordosten auf Hafenstraße")
        #expect(StepInstructions.text(step(.turn, .uturn, name: ""), language: .en) == "Make a U-turn")
        #expect(StepInstructions.announcement(step(.turn, .right, name: "Ringstraße"), metres: 212, phase: .alert, language: .en)
            == "In 200 m, turn right onto Ringstraße")
        #expect(StepInstructions.announcement(step(.turn, .right, name: "Ringstraße"), metres: 46, phase: .preTurn, language: .de)
            == "In 50 m rechts abbiegen auf Ringstraße")
        #expect(StepInstructions.announcement(step(.turn, .right, name: "Ringstraße"), metres: 8, phase: .now, language: .en) == "Turn right onto Ringstraße")
        #expect(StepInstructions.spoken(1_249) == "1.2 km" && StepInstructions.spoken(3) == "10 m" && StepInstructions.spoken(640) == "650 m")
    }

    @Test("announcements for a bicycle: by time at the speed, never nearer than each phase's minimum; the phase due")
    func announcements() {
        let a = Announcements()
        #expect(a.distance(.alert, speed: 4) == 150 && a.distance(.alert, speed: 8) == 240)
        #expect(a.distance(.preTurn, speed: 3) == 40 && a.distance(.preTurn, speed: 6) == 60)
        #expect(a.distance(.now, speed: 2) == 10 && a.distance(.now, speed: 7) == 21)
        #expect(a.distance(.alert, speed: nil) == 150 && a.distance(.alert, speed: -1) == 150 && a.distance(.alert, speed: .nan) == 150)
        #expect(a.phase(remaining: 500, speed: 5) == nil)
        #expect(a.phase(remaining: 140, speed: 5) == .alert)
        #expect(a.phase(remaining: 45, speed: 5) == .preTurn)
        #expect(a.phase(remaining: 12, speed: 5) == .now)
        #expect(RouteGuide.modifier(turning: 10) == .straight && RouteGuide.modifier(turning: -90) == .left && RouteGuide.modifier(turning: 140) == .sharpRight)
        #expect(RouteGuide.modifier(turning: 175) == .uturn && RouteGuide.turn(from: 350, to: 10) == 20 && RouteGuide.turn(from: 10, to: 350) == -20)
    }
}
