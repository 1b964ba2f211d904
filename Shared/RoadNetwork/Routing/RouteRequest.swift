import Foundation
import Geo

/// A point given by latitude and longitude in degrees, as a request carries it (not yet checked) and as a route's
/// geometry lists it.
public struct RoadPoint: Sendable, Hashable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double

    /// The point (`latitude`, `longitude`).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What a ``RoadRouter`` is asked: from an origin to a destination through optional via points, with how many
/// alternatives and how far a point may be from the nearest usable street.
public struct RouteRequest: Sendable, Hashable {
    /// Where the route starts; snapped to the nearest bike-usable edge.
    public var origin: RoadPoint
    /// Where it ends.
    public var destination: RoadPoint
    /// Points to pass in order, at most ``RoadRouter/maximumViaPoints``.
    public var via: [RoadPoint]
    /// Alternatives wanted besides the best route, 0…2 (only with no via points; with via points only the best).
    public var alternatives: Int
    /// Metres a point may lie from the nearest usable edge (finite, > 0).
    public var snapRadius: Double

    /// A request; by default no via points, no alternatives and a 200 m snap radius.
    public init(origin: RoadPoint, destination: RoadPoint, via: [RoadPoint] = [], alternatives: Int = 0, snapRadius: Double = 200) {
        self.origin = origin
        self.destination = destination
        self.via = via
        self.alternatives = alternatives
        self.snapRadius = snapRadius
    }

    /// Origin, via points and destination in order (the indexes ``RouteError`` names).
    public var points: [RoadPoint] { [origin] + via + [destination] }
}

/// Why a ``RouteRequest`` cannot be answered. A request that is well formed but has no route is not an error:
/// ``RouteResult/noRoute(leg:)``.
public enum RouteError: Error, Sendable, Hashable {
    /// Point `index` (0 the origin, then the via points, last the destination) is not finite or out of range.
    case invalidCoordinate(index: Int, reason: CoordinateError)
    /// No bike-usable edge lies within the snap radius of point `index` (the sea, a field, outside the extract).
    case noStreetNear(index: Int)
    /// Leg `leg` (from point `leg` to point `leg + 1`) starts where it ends: same coordinates or the same snapped
    /// spot.
    case coincidentPoints(leg: Int)
    /// More via points than ``RoadRouter/maximumViaPoints``.
    case tooManyViaPoints(count: Int, limit: Int)
    /// Alternatives outside 0…2.
    case invalidAlternativeCount(Int)
    /// A snap radius that is not finite and positive.
    case invalidSnapRadius(Double)
    /// The ``RoadWeights`` were resolved for another graph.
    case weightsForAnotherGraph
}

/// The answer to a ``RouteRequest``.
public enum RouteResult: Sendable, Hashable {
    /// The best route first, then the alternatives that passed the rules (`docs/road-network.md`), better first.
    case routes([RoadRoute])
    /// No route: leg `leg` joins parts of the network that do not connect (or one-way streets trap one end).
    case noRoute(leg: Int)

    /// The routes, empty for ``noRoute(leg:)``.
    public var routes: [RoadRoute] {
        if case .routes(let routes) = self { return routes }
        return []
    }
}

extension RoadPoint {
    /// The point of a query parameter `lat,lng` (spaces around each number allowed); `nil` unless both numbers parse
    /// and lie in range (NaN and infinities do not).
    public init?(latLng text: some StringProtocol) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// The Geo coordinate, `nil` when out of range (never for points of the graph).
    public var coordinate: Coordinate? { try? Coordinate(latitude: latitude, longitude: longitude) }

    /// Great-circle metres to `other` (Geo's), infinite for an invalid point.
    public func metres(to other: RoadPoint) -> Double {
        guard let a = coordinate, let b = other.coordinate else { return .infinity }
        return a.distance(to: b)
    }
}
