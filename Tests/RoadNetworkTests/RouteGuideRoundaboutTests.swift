import Foundation
@testable import RoadNetwork
import Testing

/// Roundabouts on the real rings of Krems (6 `junction=roundabout` ways) and Monaco (10).
///
/// **Where the expected exit numbers come from.** Not from the guide, nor from the graph: from the raw OSM XML, read
/// by `scripts/lib/roundabout-exits.py` (Python's `xml.etree`, no Swift). For a ring — a closed `junction=roundabout`
/// way, ridden in its node order — and an entry node, it walks the ring's nodes after the entry up to and including
/// the exit node and counts those where another way a bicycle may use leaves the ring in a direction a bicycle may
/// take (access and one-way rules re-implemented from `docs/road-network.md`, "Access" and "Direction"). Its output
/// for every (entry, exit) pair of every ring is pasted below (``kremsRows``, ``monacoRows``); the named cases were
/// read off its listing of the ways passed, e.g. for Krems' ring 19780555 ("Wiener Straße") from the Wiener Straße
/// entry (node 448393358): Hohensteinstraße (one-way away from the ring, node 206089610) is exit 1, the one-way
/// Wiener Straße arriving at node 676274513 is an entry only and not counted, Langenloiser Straße (node 206089607)
/// is exit 2. Rerun: `python3 scripts/lib/roundabout-exits.py ../shared/data/krems.osm.gz`.
@Suite("Route guidance: roundabouts with exit numbers on real rings")
struct RouteGuideRoundaboutTests {
    /// `ring-way entry-node approach-way exit-node exit-way exit-number`, from `scripts/lib/roundabout-exits.py`.
    static let kremsRows = """
        14822444 146405708 38614460 146405706 38614464 3
        14822444 146405708 38614460 146405710 14821993 1
        14822444 146405708 38614460 146405712 38614462 2
        14822444 448399298 38614461 146405706 38614464 2
        14822444 448399298 38614461 146405710 14821993 3
        14822444 448399298 38614461 146405712 38614462 1
        14822444 448399300 38614463 146405706 38614464 1
        14822444 448399300 38614463 146405710 14821993 2
        14822444 448399300 38614463 146405712 38614462 3
        19780555 676274513 113133618 206089610 24980495 3
        19780555 676274513 113133618 206089607 24864391 1
        19780555 676274513 113133618 448393358 24864427 2
        19780555 206089607 24864391 206089610 24980495 2
        19780555 206089607 24864391 448393358 24864427 1
        19780555 448393358 24864427 206089610 24980495 1
        19780555 448393358 24864427 206089607 24864391 2
        24746392 268939344 38566224 268939357 38566228 1
        24746392 268939344 38566224 268939328 24746391 2
        24746392 268939357 38566228 268939344 38566224 2
        24746392 268939357 38566228 268939328 24746391 1
        24746392 268939328 24746391 268939344 38566224 1
        24746392 268939328 24746391 268939357 38566228 2
        38112118 146418002 38617405 448401449 38617404 1
        38112118 146418002 38617405 448401934 42965199 2
        38112118 146418002 38617405 448401445 38617407 3
        38112118 146418002 38617405 448401443 24792395 4
        38112118 448401938 38617403 448401449 38617404 4
        38112118 448401938 38617403 448401934 42965199 1
        38112118 448401938 38617403 448401445 38617407 2
        38112118 448401938 38617403 448401443 24792395 3
        38112118 448401934 42965199 448401449 38617404 3
        38112118 448401934 42965199 448401445 38617407 1
        38112118 448401934 42965199 448401443 24792395 2
        38112118 448401444 38617408 448401449 38617404 2
        38112118 448401444 38617408 448401934 42965199 3
        38112118 448401444 38617408 448401445 38617407 4
        38112118 448401444 38617408 448401443 24792395 1
        50845692 205558503 29736683 271871454 25007992 1
        50845692 205558503 29736683 271871456 25008000 2
        50845692 205558503 29736683 648535314 50845691 3
        50845692 205558503 29736683 271871449 83594208 4
        50845692 271871454 25007992 205558503 29736683 4
        50845692 271871454 25007992 271871456 25008000 1
        50845692 271871454 25007992 648535314 50845691 2
        50845692 271871454 25007992 271871449 83594208 3
        50845692 271871456 25008000 205558503 29736683 3
        50845692 271871456 25008000 271871454 25007992 4
        50845692 271871456 25008000 648535314 50845691 1
        50845692 271871456 25008000 271871449 83594208 2
        50845692 271871449 83594208 205558503 29736683 1
        50845692 271871449 83594208 271871454 25007992 2
        50845692 271871449 83594208 271871456 25008000 3
        50845692 271871449 83594208 648535314 50845691 4
        76615293 268938962 76615295 903006754 24746403 2
        76615293 268938962 76615295 903006760 76615288 3
        76615293 268938962 76615295 903006781 33549620 1
        76615293 903006781 33549620 903006754 24746403 1
        76615293 903006781 33549620 903006760 76615288 2
        """
    static let monacoRows = """
        25739583 257076297 155085119 280703047 38545596 1
        25739583 280703047 38545596 257076297 155085119 1
        92627425 1074584647 158189814 1074584736 92627436 1
        92627425 1074584647 158189814 1074584689 158189830 2
        92627425 1074584647 158189814 1074585030 158189831 3
        92627425 1074584736 92627436 1074584647 158189814 3
        92627425 1074584736 92627436 1074584689 158189830 1
        92627425 1074584736 92627436 1074585030 158189831 2
        92627425 1074584689 158189830 1074584647 158189814 2
        92627425 1074584689 158189830 1074584736 92627436 3
        92627425 1074584689 158189830 1074585030 158189831 1
        92627425 1074585030 158189831 1074584647 158189814 1
        92627425 1074585030 158189831 1074584736 92627436 2
        92627425 1074585030 158189831 1074584689 158189830 3
        92627441 1074584875 4229243 1074585031 166558486 1
        92627441 1074584875 4229243 1074585000 166558487 2
        92627441 1074585000 166558487 1074584875 4229243 1
        92627441 1074585000 166558487 1074585031 166558486 2
        93137562 25242954 159175455 1079750802 8056051 1
        93137562 25242954 159175455 1079750775 50501897 2
        93137562 1079750753 93137580 25242954 159175455 2
        93137562 1079750753 93137580 1079750802 8056051 3
        93137562 1079750753 93137580 1079750775 50501897 1
        93137562 1079750985 50501899 25242954 159175455 1
        93137562 1079750985 50501899 1079750802 8056051 2
        93137562 1079750985 50501899 1079750775 50501897 3
        93137591 1079751567 93137560 1079751325 93137578 3
        93137591 1079751567 93137560 1079751575 157719645 1
        93137591 1079751567 93137560 1079751658 93137596 2
        93137591 1079751575 157719645 1079751325 93137578 2
        93137591 1079751575 157719645 1079751658 93137596 1
        93137591 1079750773 93137569 1079751325 93137578 1
        93137591 1079750773 93137569 1079751575 157719645 2
        93137591 1079750773 93137569 1079751658 93137596 3
        94400151 1096593805 94399553 1096586801 94399927 3
        94400151 1096593805 94399553 1096595808 159170488 1
        94400151 1096593805 94399553 25210891 94399877 2
        94400151 25210891 94399590 1096586801 94399927 1
        94400151 25210891 94399590 1096595808 159170488 2
        94400151 1096590186 94399600 1096586801 94399927 1
        94400151 1096590186 94399600 1096595808 159170488 2
        94400151 1096590186 94399600 25210891 94399877 3
        94400151 1096595072 159170492 1096586801 94399927 1
        94400151 1096595072 159170492 1096595808 159170488 2
        94400151 1096595072 159170492 25210891 94399877 3
        120113155 1347117302 120062665 1347113099 120062272 1
        120113155 1347117302 120062665 1347551314 166643410 2
        120113155 1347117302 120062665 1347551318 120113158 3
        120113155 1347551333 120062663 1347113099 120062272 3
        120113155 1347551333 120062663 1347551314 166643410 1
        120113155 1347551333 120062663 1347551318 120113158 2
        120113155 1347551336 120114108 1347113099 120062272 2
        120113155 1347551336 120114108 1347551314 166643410 3
        120113155 1347551336 120114108 1347551318 120113158 1
        120114109 1347559089 166643410 1347559138 120114108 4
        120114109 1347559089 166643410 1347559137 121380666 1
        120114109 1347559089 166643410 1347559083 121380668 2
        120114109 1347559089 166643410 1347559093 120114111 3
        120114109 1347559092 121380669 1347559138 120114108 2
        120114109 1347559092 121380669 1347559137 121380666 3
        120114109 1347559092 121380669 1347559083 121380668 4
        120114109 1347559092 121380669 1347559093 120114111 1
        120114109 1347559084 120114107 1347559138 120114108 1
        120114109 1347559084 120114107 1347559137 121380666 2
        120114109 1347559084 120114107 1347559083 121380668 3
        120114109 1347559084 120114107 1347559093 120114111 4
        167625756 25185687 4230122 1790048638 4230119 1
        167625756 25185687 4230122 1790048628 167625742 2
        167625756 1790048638 4230119 25185687 4230122 2
        167625756 1790048638 4230119 1790048628 167625742 1
        167625756 1790048628 167625742 25185687 4230122 1
        167625756 1790048628 167625742 1790048638 4230119 2
        """

    struct Row {
        var ring: Int64, entry: Int64, approach: Int64, exit: Int64, exitWay: Int64, number: Int
    }

    static func rows(_ text: String) -> [Row] {
        text.split(separator: "\n").map { line in
            let f = line.split(separator: " ").map { Int64($0)! }
            return Row(ring: f[0], entry: f[1], approach: f[2], exit: f[3], exitWay: f[4], number: Int(f[5]))
        }
    }

    static func vertex(_ graph: RoadGraph, _ node: Int64) -> Int? {
        graph.vertexNodeIDs.firstIndex(of: node)
    }

    /// The vertex at the other end of an edge of way `way` at `vertex` (whichever the direction).
    static func neighbour(_ graph: RoadGraph, of vertex: Int, along way: Int64) -> Int? {
        for edge in 0..<graph.edgeCount where graph.ways[Int(graph.edgeWays[edge])].osmID == way {
            if Int(graph.edgeSources[edge]) == vertex { return Int(graph.edgeTargets[edge]) }
            if Int(graph.edgeTargets[edge]) == vertex { return Int(graph.edgeSources[edge]) }
        }
        return nil
    }

    static func point(_ graph: RoadGraph, _ vertex: Int) -> RoadPoint {
        RoadPoint(latitude: graph.vertexLatitudes[vertex], longitude: graph.vertexLongitudes[vertex])
    }

    static func isRing(_ graph: RoadGraph, _ segment: RoadRoute.Segment) -> Bool {
        graph.ways.use(of: Int(graph.edgeWays[segment.edge])).isRoundabout
    }

    /// The route's runs of ring pieces: first and last index.
    static func ringRuns(_ graph: RoadGraph, _ route: RoadRoute) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        for (i, segment) in route.segments.enumerated() where isRing(graph, segment) {
            if let last = runs.last, last.upperBound == i - 1 { runs[runs.count - 1] = last.lowerBound...i } else { runs.append(i...i) }
        }
        return runs
    }

    static func kinds(_ steps: [RouteStep]) -> [RouteManeuver.Kind] {
        steps.map(\.maneuver.kind)
    }

    /// The route from the far end of the approach way's edge at the entry to the far end of the exit way's edge at the
    /// exit, if the router's route enters the ring at the entry and leaves it at the exit (else `nil`).
    static func route(_ graph: RoadGraph, _ row: Row) -> (route: RoadRoute, run: ClosedRange<Int>)? {
        guard let entry = vertex(graph, row.entry), let exit = vertex(graph, row.exit),
              let from = neighbour(graph, of: entry, along: row.approach), let to = neighbour(graph, of: exit, along: row.exitWay),
              let route = RoadRouter(graph: graph).route(fromVertex: from, toVertex: to) else { return nil }
        let runs = ringRuns(graph, route)
        guard runs.count == 1, let run = runs.first, run.lowerBound > 0, run.upperBound < route.segments.count - 1,
              route.segments[run.lowerBound].nodeIDs.first == row.entry, route.segments[run.upperBound + 1].nodeIDs.first == row.exit,
              graph.ways[Int(graph.edgeWays[route.segments[run.lowerBound].edge])].osmID == row.ring else { return nil }
        return (route, run)
    }

    /// Every pair the router rides as the row says: one `roundabout` step at the entry with the row's exit number, an
    /// `exit roundabout` step right after it at the exit, nothing in between, the steps adding up to the route.
    static func checkAll(_ graph: RoadGraph, rows text: String, city: String) throws {
        let guide = RouteGuide(graph: graph)
        var checked = 0, numbers: Set<Int> = []
        for row in rows(text) {
            guard let (route, _) = route(graph, row) else { continue }
            checked += 1
            let steps = try #require(guide.steps(of: route).first)
            #expect(abs(steps.reduce(0) { $0 + $1.distance } - route.distance) < 1e-6, "\(city): steps add up to the route")
            let at = try #require(steps.firstIndex { $0.maneuver.kind == .roundabout }, "\(city) \(row): a roundabout step")
            #expect(kinds(steps).filter { $0 == .roundabout }.count == 1 && kinds(steps).filter { $0 == .exitRoundabout }.count == 1)
            let step = steps[at]
            #expect(step.maneuver.exit == row.number, "\(city) ring \(row.ring): \(row.entry) → \(row.exit)")
            #expect(step.maneuver.location == point(graph, vertex(graph, row.entry)!))
            let exit = steps[at + 1]
            #expect(exit.maneuver.kind == .exitRoundabout && exit.maneuver.location == point(graph, vertex(graph, row.exit)!))
            #expect(exit.name == step.name, "the exit step is on the road the roundabout step names")
            numbers.insert(row.number)
        }
        print("roundabouts, \(city): \(checked) of \(rows(text).count) (entry, exit) pairs ridden by the router and checked; exits \(numbers.sorted())")
        #expect(checked >= 10, "\(city): only \(checked) pairs checked")
        #expect(numbers.count >= 3, "\(city): exit numbers \(numbers.sorted())")
    }

    @Test("Krems: every (entry, exit) pair the router rides has the independently counted exit number")
    func kremsAll() throws {
        try Self.checkAll(try #require(RouteFixtures.kremsGraph), rows: Self.kremsRows, city: "Krems")
    }

    @Test("Monaco: the same")
    func monacoAll() throws {
        try Self.checkAll(try #require(RouteFixtures.monacoGraph), rows: Self.monacoRows, city: "Monaco")
    }

    /// Krems' ring 19780555 ("Wiener Straße"), entered from Wiener Straße, left onto Langenloiser Straße: exit 2
    /// (Hohensteinstraße is exit 1; the one-way Wiener Straße arriving between them is no exit).
    static let wienerStrasse = Row(ring: 19780555, entry: 448393358, approach: 24864427, exit: 206089607, exitWay: 24864391, number: 2)

    @Test("through the Wiener Straße roundabout: one step, 2nd exit, the ring folded, then exit roundabout; en and de")
    func throughRing() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        let (route, run) = try #require(Self.route(graph, Self.wienerStrasse))
        let steps = try #require(RouteGuide(graph: graph).steps(of: route).first)
        let kinds = Self.kinds(steps)
        #expect(kinds.first == .depart && kinds.last == .arrive)
        let at = try #require(kinds.firstIndex(of: .roundabout))
        #expect(kinds[at + 1] == .exitRoundabout)
        #expect(kinds.filter { $0 == .roundabout }.count == 1)
        let step = steps[at]
        #expect(step.maneuver.exit == 2)
        #expect(step.name == "Langenloiser Straße" && step.roundaboutName == "Wiener Straße")
        // The ring is all in this step: its geometry holds every ring point, and no other step starts on the ring.
        let ringPoints = route.segments[run].flatMap(\.coordinates)
        #expect(Set(ringPoints).isSubset(of: Set(step.geometry)))
        let inside = Set(route.segments[run].dropFirst().map(\.coordinates[0]))
        #expect(steps.allSatisfy { !inside.contains($0.maneuver.location) }, "no maneuver inside the ring")
        #expect(abs(step.distance - route.segments[run].reduce(0) { $0 + $1.distance }) < 1e-6)
        #expect(abs(steps.reduce(0) { $0 + $1.distance } - route.distance) < 1e-6)
        // The modifier: from the bearing into the ring to the bearing out of it.
        let out = steps[at + 1].maneuver.bearingAfter
        #expect(step.maneuver.modifier == RouteGuide.modifier(turning: RouteGuide.turn(from: Double(step.maneuver.bearingBefore), to: Double(out))))
        #expect(StepInstructions.text(step, language: .en) == "Enter the roundabout and take the 2nd exit onto Langenloiser Straße")
        #expect(StepInstructions.text(step, language: .de) == "Im Kreisverkehr die 2. Ausfahrt nehmen auf Langenloiser Straße")
        #expect(StepInstructions.text(steps[at + 1], language: .en) == "Exit the roundabout onto Langenloiser Straße")
        #expect(StepInstructions.text(steps[at + 1], language: .de) == "Verlassen Sie den Kreisverkehr auf Langenloiser Straße")
        #expect(StepInstructions.announcement(step, metres: 204, phase: .alert, language: .en)
            == "In 200 m, enter the roundabout and take the 2nd exit onto Langenloiser Straße")
        #expect(StepInstructions.announcement(step, metres: 204, phase: .alert, language: .de)
            == "In 200 m im Kreisverkehr die 2. Ausfahrt nehmen auf Langenloiser Straße")
    }

    @Test("Hofrat-Erben-Straße ring: the 4th exit, past two service roads")
    func fourthExit() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        // Symalenstraße in; Hofrat-Erben-Straße, Magnesitstraße (service), an unnamed service road, Hofrat-Erben-Straße.
        let row = Row(ring: 50845692, entry: 205558503, approach: 29736683, exit: 271871449, exitWay: 83594208, number: 4)
        let (route, _) = try #require(Self.route(graph, row))
        let steps = try #require(RouteGuide(graph: graph).steps(of: route).first)
        let step = try #require(steps.first { $0.maneuver.kind == .roundabout })
        #expect(step.maneuver.exit == 4)
        #expect(StepInstructions.text(step, language: .en) == "Enter the roundabout and take the 4th exit onto Hofrat-Erben-Straße")
    }

    @Test("a route starting on the ring departs on it and exits; one ending on it enters without an exit number")
    func startAndEndOnRing() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        let router = RoadRouter(graph: graph), guide = RouteGuide(graph: graph)
        let hohenstein = try #require(Self.vertex(graph, 206089610)), langenlois = try #require(Self.vertex(graph, 206089607))
        let entry = try #require(Self.vertex(graph, 448393358))

        // From the ring's vertex at Hohensteinstraße onto Langenloiser Straße.
        let beyond = try #require(Self.neighbour(graph, of: langenlois, along: 24864391))
        let starting = try #require(router.route(fromVertex: hohenstein, toVertex: beyond))
        #expect(Self.isRing(graph, starting.segments[0]))
        let steps = try #require(guide.steps(of: starting).first)
        #expect(Self.kinds(steps) == [.depart, .exitRoundabout, .arrive])
        #expect(steps[0].name == "Wiener Straße" && steps[1].name == "Langenloiser Straße")
        #expect(steps[1].maneuver.location == Self.point(graph, langenlois))
        #expect(abs(steps.reduce(0) { $0 + $1.distance } - starting.distance) < 1e-6)

        // From Wiener Straße into the ring, ending at Hohensteinstraße.
        let before = try #require(Self.neighbour(graph, of: entry, along: 24864427))
        let ending = try #require(router.route(fromVertex: before, toVertex: hohenstein))
        #expect(Self.isRing(graph, ending.segments.last!))
        let into = try #require(guide.steps(of: ending).first)
        #expect(Self.kinds(into) == [.depart, .roundabout, .arrive])
        #expect(into[1].maneuver.exit == nil && into[1].name == "Wiener Straße")
        #expect(StepInstructions.text(into[1], language: .en) == "Enter the roundabout")
        #expect(StepInstructions.text(into[1], language: .de) == "In den Kreisverkehr fahren")
        #expect(abs(into.reduce(0) { $0 + $1.distance } - ending.distance) < 1e-6)

        // A via point on the ring: the first leg ends on it, the second departs on it and exits.
        let (through, run) = try #require(Self.route(graph, Self.wienerStrasse))
        let legs = guide.steps(of: through, legs: [run.lowerBound + 1, through.segments.count - run.lowerBound - 1])
        #expect(legs.count == 2)
        #expect(Self.kinds(legs[0]).suffix(2) == [.roundabout, .arrive] && legs[0].last { $0.maneuver.kind == .roundabout }?.maneuver.exit == nil)
        #expect(Self.kinds(legs[1]).prefix(2) == [.depart, .exitRoundabout])
        #expect(abs(legs.joined().reduce(0) { $0 + $1.distance } - through.distance) < 1e-6)
    }

    @Test("Monaco: an unnamed ring to an unnamed exit — the 3rd exit, said without a name")
    func unnamed() throws {
        let graph = try #require(RouteFixtures.monacoGraph)
        let row = Row(ring: 120114109, entry: 1347559089, approach: 166643410, exit: 1347559093, exitWay: 120114111, number: 3)
        let (route, _) = try #require(Self.route(graph, row))
        let steps = try #require(RouteGuide(graph: graph).steps(of: route).first)
        let step = try #require(steps.first { $0.maneuver.kind == .roundabout })
        #expect(step.maneuver.exit == 3 && step.roundaboutName == nil && step.name.isEmpty)
        #expect(StepInstructions.text(step, language: .en) == "Enter the roundabout and take the 3rd exit")
        #expect(StepInstructions.text(step, language: .de) == "Im Kreisverkehr die 3. Ausfahrt nehmen")
    }

    @Test("random routes through Krems and Monaco: a roundabout step for every ring entered, an exit step for every ring left")
    func structure() throws {
        for graph in [try #require(RouteFixtures.kremsGraph), try #require(RouteFixtures.monacoGraph)] {
            let router = RoadRouter(graph: graph), guide = RouteGuide(graph: graph)
            var generator = SeededGenerator(seed: 7)
            var withRing = 0, tries = 0
            while withRing < 25 && tries < 4_000 {
                tries += 1
                let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
                guard a != b, let route = router.route(fromVertex: a, toVertex: b) else { continue }
                let runs = Self.ringRuns(graph, route)
                guard !runs.isEmpty else { continue }
                withRing += 1
                let steps = try #require(guide.steps(of: route).first)
                let kinds = Self.kinds(steps)
                #expect(kinds.filter { $0 == .roundabout }.count == runs.count { $0.lowerBound > 0 })
                #expect(kinds.filter { $0 == .exitRoundabout }.count == runs.count { $0.upperBound < route.segments.count - 1 })
                for (i, kind) in kinds.enumerated() where kind == .roundabout {
                    #expect([.exitRoundabout, .arrive].contains(kinds[i + 1]))
                    #expect((steps[i].maneuver.exit ?? 1) >= 1)
                }
                #expect(abs(steps.reduce(0) { $0 + $1.distance } - route.distance) < 1e-6)
                for (previous, next) in zip(steps, steps.dropFirst()) where next.maneuver.kind != .arrive {
                    #expect(previous.geometry.last == next.geometry.first)
                }
            }
            #expect(withRing >= 10, "only \(withRing) random routes ride a ring")
        }
    }

    @Test("the profile marks junction=roundabout and circular; the mark survives the cache")
    func profileAndCache() throws {
        let profile = BikeProfile()
        func use(_ tags: [(String, String)]) -> BikeWayUse? { profile.use(of: OSMTags(tags.map { (key: $0.0, value: $0.1) })) }
        #expect(use([("highway", "residential"), ("junction", "roundabout")])?.isRoundabout == true)
        #expect(use([("highway", "tertiary"), ("junction", "circular")])?.isRoundabout == true)
        #expect(use([("highway", "residential"), ("junction", "yes")])?.isRoundabout == false)
        #expect(use([("highway", "residential")])?.isRoundabout == false)

        let built = try RoadGraphBuilder().build([OSMFixtures.krems])
        let rings = Set(built.graph.ways.filter(\.use.isRoundabout).map(\.osmID))
        #expect(rings == [14822444, 19780555, 24746392, 38112118, 50845692, 76615293], "Krems' six junction=roundabout ways")
        let key = [UInt8](repeating: 7, count: 32)
        let bytes = RoadGraphCacheFile.encode(built.graph, report: built.report, key: key)
        guard case .success(let decoded) = RoadGraphCacheFile.decode(bytes, key: key, profile: BikeProfile()) else {
            Issue.record("the cache does not decode")
            return
        }
        #expect(decoded.graph.ways == built.graph.ways)
        #expect(RoadGraphCacheFile.formatVersion >= 3, "a version-2 cache (no roundabout bit) is stale")
    }

    @Test("words: ordinals to the 10th, then \"exit 11\"; no exit number; exit roundabout without a name")
    func words() {
        func step(_ kind: RouteManeuver.Kind, exit: Int?, name: String) -> RouteStep {
            RouteStep(maneuver: RouteManeuver(kind: kind, modifier: .right, location: RoadPoint(latitude: 48.4, longitude: 15.6), bearingBefore: 0,
                                              bearingAfter: 90, exit: exit),
                      name: name, ref: nil, wayClass: "residential", distance: 100, duration: 20, weight: 100, geometry: [])
        }
        let en = [1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 10: "10th"]
        for (exit, ordinal) in en {
            #expect(StepInstructions.text(step(.roundabout, exit: exit, name: "Ringstraße"), language: .en)
                == "Enter the roundabout and take the \(ordinal) exit onto Ringstraße")
        }
        #expect(StepInstructions.text(step(.roundabout, exit: 1, name: ""), language: .en) == "Enter the roundabout and take the 1st exit")
        #expect(StepInstructions.text(step(.roundabout, exit: 11, name: "Ringstraße"), language: .en) == "Enter the roundabout and take exit 11 onto Ringstraße")
        #expect(StepInstructions.text(step(.roundabout, exit: 2, name: "Ringstraße"), language: .de) == "Im Kreisverkehr die 2. Ausfahrt nehmen auf Ringstraße")
        #expect(StepInstructions.text(step(.roundabout, exit: 2, name: ""), language: .de) == "Im Kreisverkehr die 2. Ausfahrt nehmen")
        #expect(StepInstructions.text(step(.roundabout, exit: 12, name: ""), language: .de) == "Im Kreisverkehr die 12. Ausfahrt nehmen")
        #expect(StepInstructions.text(step(.roundabout, exit: nil, name: "Ringstraße"), language: .en) == "Enter the roundabout")
        #expect(StepInstructions.text(step(.exitRoundabout, exit: nil, name: ""), language: .en) == "Exit the roundabout")
        #expect(StepInstructions.text(step(.exitRoundabout, exit: nil, name: ""), language: .de) == "Verlassen Sie den Kreisverkehr")
        #expect(StepInstructions.announcement(step(.exitRoundabout, exit: nil, name: "Ringstraße"), metres: 48, phase: .preTurn, language: .en)
            == "In 50 m, exit the roundabout onto Ringstraße")
        #expect(StepInstructions.announcement(step(.exitRoundabout, exit: nil, name: "Ringstraße"), metres: 48, phase: .preTurn, language: .de)
            == "In 50 m verlassen Sie den Kreisverkehr auf Ringstraße")
        #expect(StepInstructions.announcement(step(.roundabout, exit: 3, name: ""), metres: 9, phase: .now, language: .en)
            == "Enter the roundabout and take the 3rd exit")
        #expect(RouteManeuver.Kind.roundabout.rawValue == "roundabout" && RouteManeuver.Kind.exitRoundabout.rawValue == "exit roundabout")
    }
}
