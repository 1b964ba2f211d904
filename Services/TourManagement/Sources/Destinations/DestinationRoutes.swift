import Foundation
import Geo
import Hummingbird
import ServiceKit

/// One destination in answers.
struct DestinationResponse: Codable, Sendable {
    var id: Int64
    var name: String
    var country: String
    var location: LatLng
    var publishedTours: Int

    struct LatLng: Codable, Sendable {
        var lat: Double
        var lng: Double
    }

    init(_ city: City, publishedTours: Int) {
        id = city.id
        name = city.name
        country = city.country
        location = LatLng(lat: city.coordinate.latitude, lng: city.coordinate.longitude)
        self.publishedTours = publishedTours
    }
}

struct DestinationListResponse: ResponseEncodable {
    var destinations: [DestinationResponse]
    var attribution = Gazetteer.attribution
}

struct PopularDestination: Codable, Sendable {
    var destination: DestinationResponse
    var completedPurchases: Int
}

struct PopularDestinationsResponse: ResponseEncodable {
    var destinations: [PopularDestination]
    var attribution = Gazetteer.attribution
}

struct NearbyDestination: Codable, Sendable {
    var destination: DestinationResponse
    var distanceMetres: Int
}

struct NearbyDestinationsResponse: ResponseEncodable {
    var destinations: [NearbyDestination]
    var attribution = Gazetteer.attribution
}

struct DestinationDetailResponse: ResponseEncodable {
    var destination: DestinationResponse
    var attribution = Gazetteer.attribution
}

/// `GET /v1/destinations…`: public, answered from the in-memory index.
public struct DestinationRoutes: Sendable {
    public let index: DestinationIndex

    public init(index: DestinationIndex) {
        self.index = index
    }

    /// Mounts the destination routes on `group` (mounted at `/v1/destinations`, public).
    public func addRoutes(to group: RouterGroup<ServiceRequestContext>) {
        group.get(use: search)
        group.get("popular", use: popular)
        group.get("near", use: near)
        group.get(":id", use: show)
    }

    /// `GET /v1/destinations?prefix=&limit=`: destinations whose name starts with `prefix`.
    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> DestinationListResponse {
        let query = request.uri.queryParameters
        var validator = Validator()
        let prefix = query.get("prefix")
        validator.present(prefix, field: "prefix")
        validator.length(prefix.map { $0.trimmingCharacters(in: .whitespaces) }, field: "prefix", min: 1, max: 100)
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? 50
        validator.range(limit, field: "limit", 1...50)
        try validator.check()
        return DestinationListResponse(destinations: index.search(prefix: prefix ?? "", limit: limit).map(response))
    }

    /// `GET /v1/destinations/popular?limit=`: by completed purchases.
    @Sendable func popular(_ request: Request, context: ServiceRequestContext) async throws -> PopularDestinationsResponse {
        let limit = request.uri.queryParameters.get("limit").map { Int($0) ?? -1 } ?? 20
        var validator = Validator()
        validator.range(limit, field: "limit", 1...50)
        try validator.check()
        return PopularDestinationsResponse(destinations: index.popular(limit: limit).map {
            PopularDestination(destination: DestinationResponse($0.city, publishedTours: $0.publishedTours),
                               completedPurchases: $0.completedPurchases)
        })
    }

    /// `GET /v1/destinations/near?lat=&lng=&limit=`: the nearest destinations, with their distance in metres.
    @Sendable func near(_ request: Request, context: ServiceRequestContext) async throws -> NearbyDestinationsResponse {
        let query = request.uri.queryParameters
        var validator = Validator()
        let lat = query.get("lat").flatMap(Double.init), lng = query.get("lng").flatMap(Double.init)
        validator.require(lat.map { (-90...90).contains($0) } ?? false, field: "lat", code: "out-of-range",
                          message: "must be a latitude between -90 and 90")
        validator.require(lng.map { (-180...180).contains($0) } ?? false, field: "lng", code: "out-of-range",
                          message: "must be a longitude between -180 and 180")
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? 10
        validator.range(limit, field: "limit", 1...50)
        try validator.check()
        let here = try Coordinate(latitude: lat!, longitude: lng!)
        return NearbyDestinationsResponse(destinations: index.nearest(to: here, limit: limit).map {
            NearbyDestination(destination: response($0.city), distanceMetres: Int($0.metres.rounded()))
        })
    }

    /// `GET /v1/destinations/{id}`; 404 `unknown-destination` for an unknown or malformed id.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> DestinationDetailResponse {
        let unknown = Problem.notFound("no such destination", code: "unknown-destination")
        guard let city = index.city(id: try context.parameters.require("id", as: Int64.self, ifInvalid: unknown)) else { throw unknown }
        return DestinationDetailResponse(destination: response(city))
    }

    /// A destination with its count of published tours.
    func response(_ city: City) -> DestinationResponse {
        DestinationResponse(city, publishedTours: index.publishedTours(cityID: city.id))
    }
}
