import Foundation
import Geo
import Hummingbird
import RoadNetwork

/// A geometry as the query asked: a polyline6 string or a GeoJSON LineString.
enum RouteGeometry: Encodable, Sendable {
    case polyline6(String)
    case lineString([[Double]])

    init(_ points: [RoadPoint], format: RouteQuery.GeometryFormat) {
        switch format {
        case .polyline6:
            self = .polyline6(Polyline(points.compactMap(\.coordinate)).encoded(precision: .six))
        case .geojson:
            self = .lineString(points.map { Self.position($0) })
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .polyline6(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .lineString(let positions):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("LineString", forKey: .type)
            try container.encode(positions, forKey: .coordinates)
        }
    }

    enum Keys: String, CodingKey { case type, coordinates }

    /// `[lng, lat]`, 6 decimals.
    static func position(_ point: RoadPoint) -> [Double] {
        [rounded(point.longitude, 6), rounded(point.latitude, 6)]
    }

    static func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

/// `GET /v1/routes`: OSRM's route service response (`code`, `routes` → `legs` → `steps` → `maneuver`, `waypoints`), with
/// Waypoint's additions on each route: `score` and its breakdown, the approved `paths` and open `obstacles` along it.
/// Snake-case keys where OSRM has them (`bearing_before`, `weight_name`, `driving_side`), camelCase for additions.
struct RouteSearchResponse: Encodable, Sendable {
    var code = "Ok"
    var routes: [RouteResponse]
    var waypoints: [WaypointResponse]

    init(_ plan: RoutePlan, query: RouteQuery, announcements: Announcements = Announcements()) {
        routes = plan.routes.map { RouteResponse($0, query: query, announcements: announcements) }
        waypoints = plan.waypoints.map(WaypointResponse.init)
        announce(plan, query: query, announcements: announcements)
    }
}

struct WaypointResponse: Encodable, Sendable {
    var name: String
    var location: [Double]
    var distance: Double

    init(_ waypoint: RoutePlan.Waypoint) {
        name = waypoint.name
        location = RouteGeometry.position(waypoint.location)
        distance = RouteGeometry.rounded(waypoint.distance, 1)
    }
}

struct RouteResponse: Encodable, Sendable {
    var distance: Double
    var duration: Double
    var weight: Double
    var weightName = "bike-equivalent-metres"
    var score: ScoreResponse
    var geometry: RouteGeometry
    var legs: [LegResponse]
    var paths: [PathStretchResponse]
    var obstacles: [ObstacleResponse]

    enum CodingKeys: String, CodingKey {
        case distance, duration, weight, weightName = "weight_name", score, geometry, legs, paths, obstacles
    }

    init(_ route: PlannedRoute, query: RouteQuery, announcements: Announcements) {
        distance = RouteGeometry.rounded(route.distance, 1)
        duration = RouteGeometry.rounded(route.duration, 1)
        weight = RouteGeometry.rounded(route.weight, 1)
        score = ScoreResponse(route.score)
        geometry = RouteGeometry(route.geometry, format: query.geometries)
        let count = route.legs.count
        legs = route.legs.enumerated().map { index, leg in
            LegResponse(leg, final: index == count - 1, query: query, announcements: announcements)
        }
        paths = route.paths.map(PathStretchResponse.init)
        obstacles = route.obstacles.map(ObstacleResponse.init)
    }
}

struct ScoreResponse: Encodable, Sendable {
    var total: Double
    var weight: Double
    var metresByWayClass: [String: Double]
    var metresByPathStatus: [String: Double]
    var obstacles: Int
    var obstaclePenalty: Double
    var turns: Int
    var turnCost: Double

    init(_ score: RouteScore) {
        total = RouteGeometry.rounded(score.total, 1)
        weight = RouteGeometry.rounded(score.weight, 1)
        metresByWayClass = score.metresByWayClass.mapValues { RouteGeometry.rounded($0, 1) }
        metresByPathStatus = score.metresByPathStatus.mapValues { RouteGeometry.rounded($0, 1) }
        obstacles = score.obstacles
        obstaclePenalty = RouteGeometry.rounded(score.obstaclePenalty, 1)
        turns = score.turns
        turnCost = RouteGeometry.rounded(score.turnCost, 1)
    }
}

struct PathStretchResponse: Encodable, Sendable {
    var id: String
    var name: String
    var condition: String
    var fromMetres: Double
    var toMetres: Double

    init(_ stretch: RouteAnnotations.PathStretch) {
        id = stretch.id.uuidString.lowercased()
        name = stretch.name
        condition = stretch.condition
        fromMetres = RouteGeometry.rounded(stretch.from, 1)
        toMetres = RouteGeometry.rounded(stretch.to, 1)
    }
}

struct ObstacleResponse: Encodable, Sendable {
    var id: String
    var pathId: String
    var type: String
    var confidence: Double
    var location: [Double]
    var atMetres: Double
    var penalty: Double

    init(_ obstacle: RouteAnnotations.ObstaclePassed) {
        id = obstacle.id.uuidString.lowercased()
        pathId = obstacle.pathId.uuidString.lowercased()
        type = obstacle.type
        confidence = RouteGeometry.rounded(obstacle.confidence, 3)
        location = RouteGeometry.position(obstacle.location)
        atMetres = RouteGeometry.rounded(obstacle.at, 1)
        penalty = RouteGeometry.rounded(obstacle.penalty, 1)
    }
}

struct LegResponse: Encodable, Sendable {
    var distance: Double
    var duration: Double
    var weight: Double
    var summary: String
    var steps: [StepResponse]

    init(_ leg: PlannedRoute.Leg, final: Bool, query: RouteQuery, announcements: Announcements) {
        distance = RouteGeometry.rounded(leg.route.distance, 1)
        duration = RouteGeometry.rounded(leg.route.duration, 1)
        weight = RouteGeometry.rounded(leg.route.weight, 1)
        summary = Self.summary(leg.steps)
        steps = query.steps ? leg.steps.map { StepResponse($0, final: final, query: query, announcements: announcements) } : []
    }

    /// OSRM's summary: the names of the two longest named roads, in route order.
    /// A leg names a handful of roads: two parallel arrays searched in order, not a dictionary and a set of strings
    /// hashed per step (which showed at 3 % of a route search's CPU).
    static func summary(_ steps: [RouteStep]) -> String {
        var names: [String] = [], metres: [Double] = []
        for step in steps {
            guard let name = StepInstructions.roadName(step) else { continue }
            if let index = names.firstIndex(of: name) {
                metres[index] += step.distance
            } else {
                names.append(name)
                metres.append(step.distance)
            }
        }
        let longest = names.indices.sorted { metres[$0] > metres[$1] }.prefix(2)
        return names.indices.filter(longest.contains).map { names[$0] }.joined(separator: ", ")
    }
}

struct StepResponse: Encodable, Sendable {
    var distance: Double
    var duration: Double
    var weight: Double
    var name: String
    var ref: String?
    var mode = "cycling"
    var drivingSide = "right"
    var wayClass: String
    var geometry: RouteGeometry
    var maneuver: ManeuverResponse
    var voiceInstructions: [VoiceInstructionResponse]

    enum CodingKeys: String, CodingKey {
        case distance, duration, weight, name, ref, mode, drivingSide = "driving_side", wayClass, geometry, maneuver, voiceInstructions
    }

    init(_ step: RouteStep, final: Bool, query: RouteQuery, announcements: Announcements) {
        distance = RouteGeometry.rounded(step.distance, 1)
        duration = RouteGeometry.rounded(step.duration, 1)
        weight = RouteGeometry.rounded(step.weight, 1)
        name = step.name
        ref = step.ref
        wayClass = step.wayClass
        geometry = RouteGeometry(step.geometry, format: query.geometries)
        maneuver = ManeuverResponse(step, final: final, language: query.language)
        voiceInstructions = []
    }
}

/// A spoken announcement of the *next* maneuver, placed on this step `distanceAlongGeometry` metres before its end
/// (Mapbox's `voiceInstructions`); phases and distances for a bicycle at the default speed (``Announcements``).
struct VoiceInstructionResponse: Encodable, Sendable {
    var distanceAlongGeometry: Double
    var phase: String
    var announcement: String
}

struct ManeuverResponse: Encodable, Sendable {
    var type: String
    var modifier: String?
    var location: [Double]
    var bearingBefore: Int
    var bearingAfter: Int
    /// On a `roundabout` maneuver, the exit taken (OSRM's `exit`); absent otherwise.
    var exit: Int?
    var instruction: String

    enum CodingKeys: String, CodingKey {
        case type, modifier, location, bearingBefore = "bearing_before", bearingAfter = "bearing_after", exit, instruction
    }

    init(_ step: RouteStep, final: Bool, language: InstructionLanguage) {
        type = step.maneuver.kind.rawValue
        modifier = step.maneuver.modifier?.rawValue
        location = RouteGeometry.position(step.maneuver.location)
        bearingBefore = step.maneuver.bearingBefore
        bearingAfter = step.maneuver.bearingAfter
        exit = step.maneuver.exit
        instruction = StepInstructions.text(step, language: language, finalArrival: final)
    }
}

extension RouteSearchResponse {
    /// Fills every step's `voiceInstructions`: for the maneuver that ends it, each phase whose distance falls on the
    /// step (a short step keeps the phases that fit; the first phase that does not fit moves to the step before is
    /// left to the client).
    private mutating func announce(_ plan: RoutePlan, query: RouteQuery, announcements: Announcements) {
        guard query.steps else { return }
        for (r, route) in plan.routes.enumerated() {
            for (l, leg) in route.legs.enumerated() {
                let final = l == route.legs.count - 1
                for s in leg.steps.indices.dropLast() {
                    let next = leg.steps[s + 1], length = leg.steps[s].distance
                    routes[r].legs[l].steps[s].voiceInstructions = Announcements.Phase.allCases.compactMap { phase in
                        let at = announcements.distance(phase, speed: nil)
                        guard at <= length || phase == .alert && length > 0 else { return nil }
                        let placed = min(at, length)
                        return VoiceInstructionResponse(distanceAlongGeometry: RouteGeometry.rounded(placed, 1), phase: phase.rawValue,
                                                        announcement: StepInstructions.announcement(next, metres: placed, phase: phase,
                                                                                                    language: query.language, finalArrival: final))
                    }
                }
            }
        }
    }
}
