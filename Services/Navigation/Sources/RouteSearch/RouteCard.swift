import Foundation
import Geo
import Hummingbird
import RoadNetwork
import ServiceKit

/// The "get me back to my hotel" card (issue 21, point 6): for a destination — a coordinate, one of the caller's
/// favourites, or a stop of a tour they may navigate — the bearing and straight-line distance from where they stand,
/// walking and cycling time, and the bike route's first instructions. Walking is estimated from the straight line
/// (× ``detourFactor`` at ``walkingSpeed``: the service routes bicycles only); cycling is the bike route's time, or the
/// same estimate at ``cyclingSpeed`` when no route starts near the caller (the card is still answered: a bearing and
/// a distance get anyone home).
public struct RouteCards: Sendable {
    /// Streets are longer than the crow flies: 1.3 is the usual urban detour index (Giacomin & Levinson 2015: 1.2–1.4).
    public static let detourFactor = 1.3
    /// 5 km/h.
    public static let walkingSpeed = 1.4
    /// 16 km/h, a relaxed city pace.
    public static let cyclingSpeed = 4.5
    /// Instructions listed.
    public static let instructionCount = 3

    let planner: RoutePlanner
    let places: NavigationPlaces
    let tours: any TourCatalogStore

    public init(planner: RoutePlanner, places: NavigationPlaces, tours: any TourCatalogStore) {
        self.planner = planner
        self.places = places
        self.tours = tours
    }

    public func addRoutes(to routes: ServiceRoutes) {
        routes.optionallyAuthenticated("/v1/routes").get("card", use: card)
    }

    /// `GET /v1/routes/card?from=lat,lng&(to=lat,lng | favourite=id | tour=id&stop=id)[&lang=en|de]`.
    @Sendable func card(_ request: Request, context: ServiceRequestContext) async throws -> RouteCardResponse {
        let query = request.uri.queryParameters
        var validator = Validator()
        let from = RouteSearchRoutes.point(query.get("from"), field: "from", required: true, &validator)
        let language = RouteSearchRoutes.choice(query.get("lang"), field: "lang", default: InstructionLanguage.en, &validator)
        let given = ["to", "favourite", "tour"].filter { query.get($0) != nil }
        validator.require(given.count == 1, field: "to", code: given.isEmpty ? "required" : "conflict",
                          message: "give exactly one destination: to (lat,lng), favourite (id) or tour and stop (ids)")
        let to = query.get("to").flatMap { RouteSearchRoutes.point($0, field: "to", required: true, &validator) }
        let favourite = query.get("favourite").map { UUID(uuidString: $0) }
        if let favourite { validator.require(favourite != nil, field: "favourite", code: "invalid", message: "must be a favourite's id") }
        let tour = query.get("tour").map { UUID(uuidString: $0) }, stop = query.get("stop").map { UUID(uuidString: $0) }
        if query.get("tour") != nil {
            validator.require(tour != nil, field: "tour", code: "invalid", message: "must be a tour's id")
            validator.require(stop != nil && stop! != nil, field: "stop", code: stop == nil ? "required" : "invalid", message: "must be the tour's stop id")
        }
        try validator.check()
        let destination: RouteCardResponse.Destination
        if let to {
            destination = .init(kind: "coordinate", name: nil, point: to)
        } else if let favourite = favourite.flatMap({ $0 }) {
            let user = try context.requireCallerID()
            guard let place = try await places.favourite(favourite, of: user) else { throw Problem.notFound("no such favourite", code: "unknown-place") }
            destination = .init(kind: "favourite", name: place.name, point: RoadPoint(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude))
        } else {
            let user = try context.requireCallerID()
            guard let tourId = tour.flatMap({ $0 }), let navigable = try await tours.navigable(tourId, by: user) else { throw SessionError.tourNotNavigable }
            guard let stopId = stop.flatMap({ $0 }), let place = navigable.stops.first(where: { $0.stopId == stopId }) else {
                throw Problem.notFound("the tour has no such stop", code: "unknown-stop")
            }
            destination = .init(kind: "tour-stop", name: place.name, point: RoadPoint(latitude: place.latitude, longitude: place.longitude))
        }
        return card(from: from!, to: destination, language: language)
    }

    /// The card from `from` to `destination`.
    func card(from: RoadPoint, to destination: RouteCardResponse.Destination, language: InstructionLanguage) -> RouteCardResponse {
        let straight = from.metres(to: destination.point)
        let bearing = Self.bearing(from, destination.point)
        let plan = try? planner.plan(RouteQuery(points: [from, destination.point], steps: true, language: language))
        let route = plan?.routes.first
        let estimate = straight * Self.detourFactor
        let steps = route?.legs.first?.steps ?? []
        return RouteCardResponse(
            destination: destination, bearing: bearing, compass: StepInstructions.compass(bearing, language),
            straightLineM: RouteGeometry.rounded(straight, 1),
            walking: .init(distanceM: RouteGeometry.rounded(estimate, 1), durationS: (estimate / Self.walkingSpeed).rounded(), estimated: true),
            cycling: route.map { .init(distanceM: RouteGeometry.rounded($0.distance, 1), durationS: $0.duration.rounded(), estimated: false) }
                ?? .init(distanceM: RouteGeometry.rounded(estimate, 1), durationS: (estimate / Self.cyclingSpeed).rounded(), estimated: true),
            instructions: steps.prefix(Self.instructionCount).map { StepInstructions.text($0, language: language) },
            routed: route != nil)
    }

    /// Initial great-circle bearing, whole degrees 0–359.
    static func bearing(_ a: RoadPoint, _ b: RoadPoint) -> Int {
        guard let from = a.coordinate, let to = b.coordinate, a != b else { return 0 }
        return (Int(from.initialBearing(to: to).rounded()) % 360 + 360) % 360
    }
}

/// The card.
struct RouteCardResponse: ResponseEncodable, Sendable {
    struct Destination: Encodable, Sendable {
        var kind: String
        var name: String?
        var location: [Double]
        let point: RoadPoint

        init(kind: String, name: String?, point: RoadPoint) {
            self.kind = kind
            self.name = name
            self.point = point
            location = RouteGeometry.position(point)
        }

        enum CodingKeys: String, CodingKey { case kind, name, location }
    }

    struct Travel: Encodable, Sendable {
        var distanceM: Double
        var durationS: Double
        /// From the straight line, not a route.
        var estimated: Bool
    }

    var destination: Destination
    var bearing: Int
    var compass: String
    var straightLineM: Double
    var walking: Travel
    var cycling: Travel
    /// The bike route's first instructions ("Head north on …", "Turn left onto …").
    var instructions: [String]
    /// Whether a bike route was found (else cycling is estimated and there are no instructions).
    var routed: Bool
}
