import Foundation
import Geo
import Hummingbird

/// `{ "lat", "lng" }` in a response.
struct PlaceCoordinateResponse: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double

    init(_ coordinate: Coordinate) {
        (lat, lng) = (coordinate.latitude, coordinate.longitude)
    }
}

/// One favourite place.
struct FavouritePlaceResponse: ResponseEncodable, Hashable {
    var id: String
    var name: String
    var coordinate: PlaceCoordinateResponse
    var destinationId: Int64?
    var addedAt: Date
    var updatedAt: Date

    init(_ favourite: Favourite) {
        id = favourite.id.uuidString.lowercased()
        name = favourite.name
        coordinate = PlaceCoordinateResponse(favourite.coordinate)
        destinationId = favourite.destinationId
        addedAt = favourite.addedAt
        updatedAt = favourite.updatedAt
    }
}

/// `GET /v1/places/favourites`.
struct FavouritePlacesResponse: ResponseEncodable {
    var favourites: [FavouritePlaceResponse]
}

/// One recent location.
struct RecentPlaceResponse: ResponseEncodable, Hashable {
    var id: String
    var name: String?
    var coordinate: PlaceCoordinateResponse
    var kind: String
    var at: Date

    init(_ recent: RecentPlace) {
        id = recent.id.uuidString.lowercased()
        name = recent.name
        coordinate = PlaceCoordinateResponse(recent.coordinate)
        kind = recent.kind.rawValue
        at = recent.at
    }
}

/// `GET /v1/places/recent`.
struct RecentPlacesResponse: ResponseEncodable {
    var recents: [RecentPlaceResponse]
}
