import Geo

/// A maneuver at the start of a step, in OSRM's vocabulary (`docs/road-network.md`, "Guidance"): clients that read
/// OSRM's steps read these. Types a client does not know are to be read as `turn`.
public struct RouteManeuver: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The first step of a leg.
        case depart
        /// A turn onto another road, or at a junction on the same road.
        case turn
        /// The road's name changes with no turn to speak of: "continue onto …" (OSRM's `new name`, folded).
        case `continue`
        /// The last step of a leg (zero length).
        case arrive
        /// Entering a roundabout where the route rides its ring (OSRM's `roundabout`): one step from the entry to the
        /// exit, with the exit number in ``RouteManeuver/exit``.
        case roundabout
        /// Leaving a roundabout's ring (OSRM's `exit roundabout`): the step from the exit on, onto the next road.
        case exitRoundabout = "exit roundabout"
    }

    /// How sharp, from the change of bearing at the maneuver.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        case uturn, sharpRight = "sharp right", right, slightRight = "slight right", straight, slightLeft = "slight left", left
        case sharpLeft = "sharp left"
    }

    public var kind: Kind
    public var modifier: Modifier?
    /// Where it happens.
    public var location: RoadPoint
    /// Degrees clockwise from north, 0–359, of travel before and after (OSRM's `bearing_before`, `bearing_after`; 0
    /// before a departure and after an arrival).
    public var bearingBefore: Int
    public var bearingAfter: Int
    /// On a `roundabout` maneuver, the exit taken (OSRM's `exit`, 1-based): the count of the ring's vertices after the
    /// entry, up to and including the exit, where a way a bicycle may take leaves the ring (``RouteGuide``). `nil`
    /// on every other maneuver and on a roundabout the leg ends on without leaving.
    public var exit: Int? = nil
}

/// One step: a maneuver, then a stretch on one road to the next maneuver.
public struct RouteStep: Sendable, Hashable {
    public var maneuver: RouteManeuver
    /// The road's name (empty for an unnamed way) and its `ref`.
    public var name: String
    public var ref: String?
    /// The way class of its longest part (`cycleway`, `residential`, …).
    public var wayClass: String
    /// Metres, seconds and equivalent metres to the next maneuver.
    public var distance: Double
    public var duration: Double
    public var weight: Double
    /// Its geometry (from the maneuver to the next one).
    public var geometry: [RoadPoint]
    /// On a `roundabout` step, the ring's own name (or ref) when it has one (OSRM's `rotary_name`); ``name`` is then,
    /// as in OSRM, the road taken at the exit.
    public var roundaboutName: String? = nil
}

/// Turns a route into steps — OSRM's shape, with rules stated here and tested on real streets
/// (`docs/road-network.md`, "Guidance"):
///
/// - a road is its `name`, else its `ref`, else unnamed; consecutive pieces of one road form one step;
/// - where the road changes, the change of bearing (measured ``lookMetres`` before and after the junction, so a kink
///   in the last metres does not decide) names the maneuver: below ``straightDegrees`` it is `continue` (straight),
///   otherwise `turn` with its modifier;
/// - on the same road, a bend is a `turn` only at a junction with another way a bicycle may take (a fork, a crossing)
///   and when it turns by at least ``sameRoadTurnDegrees``: a road that bends on its own needs no instruction;
/// - each leg begins with `depart` (the bearing after only) and ends with `arrive` (zero length); via points end one
///   leg and depart the next;
/// - a ring is a way the profile marks ``BikeWayUse/isRoundabout`` (`junction=roundabout` or `circular`). Where the
///   route goes onto a ring from another way, one `roundabout` step begins: it holds every following ring piece (no
///   `turn` or `continue` inside the ring, whatever the ring's ways are called), its ``RouteManeuver/exit`` counts the
///   ring's vertices after the entry, up to and including the one where the route leaves, at which the graph has an
///   arc a bicycle may take that is not a ring (an entry-only one-way is no exit; a way on foot is, like any edge of
///   the graph); its modifier is the turn from the bearing before the entry to the bearing after the exit; its name
///   and ref are the road taken at the exit, ``RouteStep/roundaboutName`` the ring's. Where the route leaves the ring,
///   an `exit roundabout` step begins (modifier from the bend there). A leg that starts on a ring departs on it
///   (named after the ring) and has an `exit roundabout` step where it leaves; one that ends on a ring has a
///   `roundabout` step without an exit number. Mini-roundabouts (a `highway=mini_roundabout` node) are not rings.
public struct RouteGuide: Sendable {
    public let graph: RoadGraph

    /// Metres along the route before and after a junction where bearings are measured.
    public static let lookMetres = 20.0
    /// A change of road bending less than this reads as going straight on.
    public static let straightDegrees = 25.0
    /// A bend on the same road at a junction at least this sharp is announced.
    public static let sameRoadTurnDegrees = 45.0

    public init(graph: RoadGraph) {
        self.graph = graph
    }

    /// The steps of `route`'s legs (`legs`: segment counts per leg, in order; one leg when `nil`).
    public func steps(of route: RoadRoute, legs: [Int]? = nil) -> [[RouteStep]] {
        let counts = legs ?? [route.segments.count]
        var start = 0
        var result: [[RouteStep]] = []
        for count in counts {
            let end = min(start + count, route.segments.count)
            result.append(legSteps(Array(route.segments[start..<end])))
            start = end
        }
        return result
    }

    /// The modifier of a change of bearing (degrees, −180…180, positive clockwise: to the right).
    public static func modifier(turning angle: Double) -> RouteManeuver.Modifier {
        let magnitude = abs(angle)
        if magnitude < straightDegrees { return .straight }
        if magnitude >= 170 { return .uturn }
        let right = angle > 0
        if magnitude < 60 { return right ? .slightRight : .slightLeft }
        if magnitude < 130 { return right ? .right : .left }
        return right ? .sharpRight : .sharpLeft
    }

    /// `after − before` folded into −180…180.
    public static func turn(from before: Double, to after: Double) -> Double {
        var delta = (after - before).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta <= -180 { delta += 360 }
        return delta
    }

    private struct Road: Equatable {
        var name: String
        var ref: String?
        var key: String { name.isEmpty ? (ref ?? "") : name }
    }

    private func road(of segment: RoadRoute.Segment) -> Road {
        let way = graph.ways[Int(graph.edgeWays[segment.edge])]
        return Road(name: way.name ?? "", ref: way.ref)
    }

    private func wayClass(of segment: RoadRoute.Segment) -> String {
        graph.ways.use(of: Int(graph.edgeWays[segment.edge])).wayClass
    }

    private func isRing(_ segment: RoadRoute.Segment) -> Bool {
        graph.ways.use(of: Int(graph.edgeWays[segment.edge])).isRoundabout
    }

    /// The vertex a piece ends at, in travel order (a real vertex for every piece of a leg but its last).
    private func endVertex(of segment: RoadRoute.Segment) -> Int {
        Int(segment.reversed ? graph.edgeSources[segment.edge] : graph.edgeTargets[segment.edge])
    }

    /// Whether a bicycle may leave a ring at `vertex`: an arc the profile allows from it along a way that is not a ring.
    func isRoundaboutExit(_ vertex: Int) -> Bool {
        var found = false
        graph.forEachArc(from: vertex) { arc in
            if !found, !graph.ways.use(of: Int(graph.edgeWays[arc.edge])).isRoundabout { found = true }
        }
        return found
    }

    private func legSteps(_ segments: [RoadRoute.Segment]) -> [RouteStep] {
        let points = Self.points(segments)
        guard let first = points.first, let last = points.last else { return [] }
        // Where each segment starts in `points`, and the metres along the leg there.
        var offsets: [Int] = [], along: [Double] = [0]
        var index = 0
        for segment in segments {
            offsets.append(index)
            index += max(0, segment.coordinates.count - 1)
        }
        for i in 1..<max(points.count, 1) { along.append(along[i - 1] + Self.metres(points[i - 1], points[i])) }
        let ring = segments.map(isRing)

        var steps: [RouteStep] = []
        var current = RouteStep(
            maneuver: RouteManeuver(kind: .depart, modifier: nil, location: first, bearingBefore: 0,
                                    bearingAfter: Self.degrees(Self.bearing(points, from: 0, metres: Self.lookMetres, along: along))),
            name: segments.first.map { road(of: $0).name } ?? "", ref: segments.first.flatMap { road(of: $0).ref },
            wayClass: segments.first.map(wayClass) ?? "", distance: 0, duration: 0, weight: 0, geometry: [first])
        var classLengths: [String: Double] = [:]
        for (position, segment) in segments.enumerated() {
            if position > 0 {
                let previous = segments[position - 1]
                let at = offsets[position]
                let before = Self.bearing(points, to: at, metres: Self.lookMetres, along: along)
                let after = Self.bearing(points, from: at, metres: Self.lookMetres, along: along)
                let angle = Self.turn(from: before, to: after)
                var next: RouteStep?
                switch (ring[position - 1], ring[position]) {
                case (false, true):
                    next = roundaboutStep(segments, entering: position, ring: ring, points: points, offsets: offsets, along: along,
                                          bearingBefore: before, bearingAfter: after)
                case (true, true):
                    next = nil
                case (true, false):
                    let road = road(of: segment)
                    next = RouteStep(
                        maneuver: RouteManeuver(kind: .exitRoundabout, modifier: Self.modifier(turning: angle), location: points[at],
                                                bearingBefore: Self.degrees(before), bearingAfter: Self.degrees(after)),
                        name: road.name, ref: road.ref, wayClass: wayClass(of: segment), distance: 0, duration: 0, weight: 0,
                        geometry: [points[at]])
                case (false, false):
                    let changed = road(of: segment).key != road(of: previous).key || road(of: segment).key.isEmpty && wayClass(of: segment) != wayClass(of: previous)
                    let junction = isJunction(between: previous, and: segment)
                    var kind: RouteManeuver.Kind?
                    if changed {
                        kind = abs(angle) < Self.straightDegrees ? .continue : .turn
                    } else if junction && abs(angle) >= Self.sameRoadTurnDegrees {
                        kind = .turn
                    }
                    if let kind {
                        let road = road(of: segment)
                        next = RouteStep(
                            maneuver: RouteManeuver(kind: kind, modifier: Self.modifier(turning: angle), location: points[at],
                                                    bearingBefore: Self.degrees(before), bearingAfter: Self.degrees(after)),
                            name: road.name, ref: road.ref, wayClass: wayClass(of: segment), distance: 0, duration: 0, weight: 0,
                            geometry: [points[at]])
                    }
                }
                if let next {
                    current.wayClass = classLengths.max { $0.value < $1.value || $0.value == $1.value && $0.key > $1.key }?.key ?? current.wayClass
                    steps.append(current)
                    classLengths = [:]
                    current = next
                }
            }
            current.distance += segment.distance
            current.duration += segment.duration
            current.weight += segment.weight
            classLengths[wayClass(of: segment), default: 0] += segment.distance
            for point in segment.coordinates.dropFirst() where current.geometry.last != point { current.geometry.append(point) }
            if segment.coordinates.count == 1, current.geometry.last != segment.coordinates[0] { current.geometry.append(segment.coordinates[0]) }
        }
        current.wayClass = classLengths.max { $0.value < $1.value || $0.value == $1.value && $0.key > $1.key }?.key ?? current.wayClass
        steps.append(current)
        let arrivalBearing = points.count >= 2 ? Self.degrees(Self.bearing(points, to: points.count - 1, metres: Self.lookMetres, along: along)) : 0
        steps.append(RouteStep(maneuver: RouteManeuver(kind: .arrive, modifier: nil, location: last, bearingBefore: arrivalBearing, bearingAfter: 0),
                               name: steps.last?.name ?? "", ref: steps.last?.ref, wayClass: steps.last?.wayClass ?? "", distance: 0, duration: 0,
                               weight: 0, geometry: [last]))
        return steps
    }

    /// The `roundabout` step (still empty: the loop adds its pieces) where the leg goes onto a ring at piece `entry`.
    private func roundaboutStep(_ segments: [RoadRoute.Segment], entering entry: Int, ring: [Bool], points: [RoadPoint], offsets: [Int],
                                along: [Double], bearingBefore before: Double, bearingAfter after: Double) -> RouteStep {
        var end = entry
        while end + 1 < segments.count, ring[end + 1] { end += 1 }
        let ringRoad = (entry...end).lazy.map { road(of: segments[$0]) }.first { !$0.key.isEmpty } ?? road(of: segments[entry])
        let exit: Int?, exitBearing: Double, exitRoad: Road
        if end + 1 < segments.count {
            // The ring's vertices passed before the exit that offer a way off it, and the exit itself.
            exit = (entry..<end).count { isRoundaboutExit(endVertex(of: segments[$0])) } + 1
            exitBearing = Self.bearing(points, from: offsets[end + 1], metres: Self.lookMetres, along: along)
            exitRoad = road(of: segments[end + 1])
        } else {
            // The leg ends on the ring.
            exit = nil
            exitBearing = Self.bearing(points, to: points.count - 1, metres: Self.lookMetres, along: along)
            exitRoad = ringRoad
        }
        let at = offsets[entry]
        return RouteStep(
            maneuver: RouteManeuver(kind: .roundabout, modifier: Self.modifier(turning: Self.turn(from: before, to: exitBearing)),
                                    location: points[at], bearingBefore: Self.degrees(before), bearingAfter: Self.degrees(after), exit: exit),
            name: exitRoad.name, ref: exitRoad.ref, wayClass: wayClass(of: segments[entry]), distance: 0, duration: 0, weight: 0,
            geometry: [points[at]], roundaboutName: ringRoad.key.isEmpty ? nil : ringRoad.key)
    }

    /// Whether the vertex between two consecutive pieces offers a bicycle another way on (more than the way in and the
    /// way out): a fork or a crossing, where a bend needs saying.
    private func isJunction(between previous: RoadRoute.Segment, and next: RoadRoute.Segment) -> Bool {
        let vertex = Int(previous.reversed ? graph.edgeSources[previous.edge] : graph.edgeTargets[previous.edge])
        var others = 0
        graph.forEachArc(from: vertex) { arc in
            if arc.edge != previous.edge && arc.edge != next.edge { others += 1 }
        }
        return others > 0
    }

    /// The leg's geometry, each segment's points after the first continuing the previous one's.
    static func points(_ segments: [RoadRoute.Segment]) -> [RoadPoint] {
        var points: [RoadPoint] = []
        for segment in segments {
            if points.isEmpty { points.append(contentsOf: segment.coordinates) } else { points.append(contentsOf: segment.coordinates.dropFirst()) }
        }
        return points
    }

    /// The bearing of travel from point `index` to the point `metres` further on (or the last).
    static func bearing(_ points: [RoadPoint], from index: Int, metres: Double, along: [Double]) -> Double {
        guard index < points.count - 1 else { return bearing(points, to: index, metres: metres, along: along) }
        var end = index + 1
        while end < points.count - 1, along[end] - along[index] < metres { end += 1 }
        return azimuth(points[index], points[end])
    }

    /// The bearing of travel into point `index` from the point `metres` before it (or the first).
    static func bearing(_ points: [RoadPoint], to index: Int, metres: Double, along: [Double]) -> Double {
        guard index > 0 else { return bearing(points, from: 0, metres: metres, along: along) }
        var start = index - 1
        while start > 0, along[index] - along[start] < metres { start -= 1 }
        return azimuth(points[start], points[index])
    }

    static func azimuth(_ a: RoadPoint, _ b: RoadPoint) -> Double {
        guard let from = a.coordinate, let to = b.coordinate, a != b else { return 0 }
        return from.initialBearing(to: to)
    }

    static func metres(_ a: RoadPoint, _ b: RoadPoint) -> Double {
        let metres = a.metres(to: b)
        return metres.isFinite ? metres : 0
    }

    /// 0–359, rounded.
    static func degrees(_ bearing: Double) -> Int {
        let rounded = Int(bearing.rounded()) % 360
        return rounded < 0 ? rounded + 360 : rounded
    }
}
