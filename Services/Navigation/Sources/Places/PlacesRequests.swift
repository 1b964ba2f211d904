import Foundation
import Geo
import ServiceKit

/// `{ "lat", "lng" }` in a places request; both optional here so a body missing either is answered with every field at once.
struct PlaceCoordinateBody: Codable, Sendable, Hashable {
    var lat: Double?
    var lng: Double?

    /// The coordinate, or field errors on `field.lat` / `field.lng`.
    static func coordinate(_ body: PlaceCoordinateBody?, field: String, into validator: inout Validator) -> Coordinate? {
        guard let body else {
            validator.present(nil as PlaceCoordinateBody?, field: field)
            return nil
        }
        validator.nested(field) { v in
            v.present(body.lat, field: "lat")
            v.present(body.lng, field: "lng")
            v.range(body.lat, field: "lat", -90.0...90.0)
            v.range(body.lng, field: "lng", -180.0...180.0)
        }
        guard let lat = body.lat, let lng = body.lng else { return nil }
        return try? Coordinate(latitude: lat, longitude: lng)
    }
}

/// A name field: trimmed, 1–80 characters.
func placeName(_ name: String?, field: String = "name", required: Bool, into validator: inout Validator) -> String? {
    if required { validator.present(name, field: field) }
    guard let name else { return nil }
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    validator.length(trimmed, field: field, min: 1, max: NavigationPlaces.nameLength)
    return trimmed
}

/// `POST /v1/places/favourites`.
struct FavouritePlaceBody: Codable, Sendable {
    var name: String?
    var coordinate: PlaceCoordinateBody?
    var destinationId: Int64?

    /// The favourite to add, or 422 `invalid-field` listing every bad field.
    func validated() throws -> (name: String, coordinate: Coordinate, destinationId: Int64?) {
        var validator = Validator()
        let name = placeName(name, required: true, into: &validator)
        let coordinate = PlaceCoordinateBody.coordinate(coordinate, field: "coordinate", into: &validator)
        validator.range(destinationId, field: "destinationId", 1...Int64.max)
        try validator.check()
        return (name!, coordinate!, destinationId)
    }
}

/// `PATCH /v1/places/favourites/{id}`: the new name.
struct FavouriteRenameBody: Codable, Sendable {
    var name: String?

    func validated() throws -> String {
        var validator = Validator()
        let name = placeName(name, required: true, into: &validator)
        try validator.check()
        return name!
    }
}

/// `POST /v1/places/recent`: a location the traveller searched for (or navigated to), when.
struct RecentPlaceBody: Codable, Sendable {
    var name: String?
    var coordinate: PlaceCoordinateBody?
    var kind: String?
    var at: Date?

    /// How far in the future a client's clock may be.
    static let clockSkew: TimeInterval = 300

    func validated(now: Date) throws -> (name: String?, coordinate: Coordinate, kind: RecentPlaceKind, at: Date) {
        var validator = Validator()
        let name = placeName(name, required: false, into: &validator)
        let coordinate = PlaceCoordinateBody.coordinate(coordinate, field: "coordinate", into: &validator)
        validator.oneOf(kind, field: "kind", allowed: RecentPlaceKind.allCases.map(\.rawValue))
        validator.require(at.map { $0 <= now.addingTimeInterval(Self.clockSkew) } ?? true, field: "at", code: "out-of-range",
                          message: "must not lie in the future")
        try validator.check()
        return (name, coordinate!, kind.flatMap(RecentPlaceKind.init(rawValue:)) ?? .searched, at ?? now)
    }
}
