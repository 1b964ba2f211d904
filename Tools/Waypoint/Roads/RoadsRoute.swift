import ArgumentParser
import Foundation
import Geo
import RoadNetwork

/// `waypoint roads route --from LAT,LNG --to LAT,LNG [--via LAT,LNG …] [--alternatives N] EXTRACT…`: the best route and up
/// to N alternatives as JSON, from ``RoadRouter`` — starting and ending part-way along the snapped edges, A* with
/// landmarks, alternatives under ``AlternativeRules`` (none with via points).
struct RoadsRoute: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "Print the best bike route between coordinates as JSON (distance, duration, weight, OSM nodes).")

    @Option(help: "Start, as LAT,LNG in degrees.") var from: RouteCoordinate
    @Option(help: "Destination, as LAT,LNG in degrees.") var to: RouteCoordinate
    @Option(help: "A point to pass through, LAT,LNG; repeat for several, in order (at most 25).") var via: [RouteCoordinate] = []
    @Option(help: "Alternatives wanted besides the best route, 0–3 (only without --via; fewer when none passes the rules).")
    var alternatives = 0
    @Option(help: "Snap radius in metres: a point farther than this from every usable way has no route.") var radius = 500.0
    @OptionGroup var network: RoadExtractOptions

    /// At most this many via points.
    static let maximumVias = RoadRouter.maximumViaPoints

    func validate() throws {
        guard via.count <= Self.maximumVias else { throw ValidationError("at most \(Self.maximumVias) --via points") }
        guard (0...3).contains(alternatives) else { throw ValidationError("--alternatives must be 0 to 3") }
        guard radius.isFinite, radius > 0, radius <= 10_000 else { throw ValidationError("--radius must be in (0, 10000] metres") }
    }

    /// What `route` prints: the routes found (none when the points do not connect), best first.
    struct Answer: Encodable {
        /// One route: its totals, the OSM node sequence of each edge in travel order, and its geometry.
        struct Route: Encodable {
            var distance: Double
            var duration: Double
            var weight: Double
            var edges: [RouteEdge]
            var geometry: LineString?
        }

        /// One edge of a route: its OSM way and the OSM nodes along it, in travel order.
        struct RouteEdge: Encodable {
            var osmWayId: Int64
            var osmNodeIds: [Int64]
        }

        var attribution = openStreetMapAttribution
        var routes: [Route]
        /// Why `routes` is empty, when it is.
        var noRoute: String?
    }

    func run() throws {
        try writeRoadsOutput(try render(), to: nil)
    }

    /// The answer as JSON.
    func render() throws -> String {
        String(decoding: try JSONEncoder.roads.encode(try route(with: RoadRouter(network: network.load()))), as: UTF8.self) + "\n"
    }

    /// The best route through the points on `graph`, and its alternatives.
    func route(on graph: RoadGraph) throws -> Answer {
        try route(with: RoadRouter(graph: graph))
    }

    /// The best route through the points by `router` (landmarks from the cache when loaded from one), and its alternatives.
    func route(with router: RoadRouter) throws -> Answer {
        let points = [from] + via + [to]
        let request = RouteRequest(origin: RoadPoint(latitude: from.latitude, longitude: from.longitude),
                                   destination: RoadPoint(latitude: to.latitude, longitude: to.longitude),
                                   via: via.map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) },
                                   alternatives: alternatives, snapRadius: radius)
        let result: RouteResult
        do {
            result = try router.route(request)
        } catch {
            throw RoadsCommandError(Self.message(for: error, points: points, radius: radius))
        }
        switch result {
        case .noRoute(let leg):
            return Answer(routes: [], noRoute: "no route from \(points[leg]) to \(points[leg + 1]): they lie on parts of the network that do not connect")
        case .routes(let routes):
            return Answer(routes: routes.map(Self.describe), noRoute: nil)
        }
    }

    /// What the operator reads for a refused request (the option names as typed).
    static func message(for error: RouteError, points: [RouteCoordinate], radius: Double) -> String {
        func name(_ index: Int) -> String { index == 0 ? "--from" : index == points.count - 1 ? "--to" : "--via" }
        switch error {
        case .noStreetNear(let index): return "no street within \(radius) m of \(name(index)) \(points[index])"
        case .invalidCoordinate(let index, let reason): return "\(name(index)) \(points[index]) is not a coordinate: \(reason)"
        case .coincidentPoints(let leg): return "\(name(leg)) and \(name(leg + 1)) are the same point"
        case .tooManyViaPoints(_, let limit): return "at most \(limit) --via points"
        case .invalidAlternativeCount: return "--alternatives must be 0 to 3"
        case .invalidSnapRadius: return "--radius must be in (0, 10000] metres"
        case .weightsForAnotherGraph: return "internal error: weights of another graph"
        }
    }

    /// One route as printed: totals, the OSM nodes of each edge piece in travel order, the geometry.
    static func describe(_ route: RoadRoute) -> Answer.Route {
        let positions = route.geometry.compactMap { try? Position(longitude: $0.longitude, latitude: $0.latitude) }
        return Answer.Route(distance: route.distance, duration: route.duration, weight: route.weight,
                            edges: route.segments.map { Answer.RouteEdge(osmWayId: $0.wayID, osmNodeIds: $0.nodeIDs) },
                            geometry: try? LineString(positions))
    }
}

/// A `LAT,LNG` command-line value in degrees: finite, latitude within ±90, longitude within ±180.
struct RouteCoordinate: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var latitude: Double
    var longitude: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces)),
              (try? Coordinate(latitude: latitude, longitude: longitude)) != nil else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    var description: String { "\(latitude),\(longitude)" }
}
