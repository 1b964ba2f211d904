import Foundation
import Geo
import Hummingbird
import RoadNetwork

/// One street in a list: what a client needs to show it and pick it as a draft piece.
struct StreetSummaryResponse: Codable, Sendable {
    /// The street's id: the smallest OSM way id of its ways.
    var id: Int64
    var name: String
    /// Whether a bike path may be drawn on it (``StreetCompatibility``).
    var compatible: Bool
    /// Why not, when it is not (`push-only`); empty when compatible.
    var incompatibleReasons: [String]
    /// Length of its ways, metres (one decimal).
    var lengthMetres: Double
    /// West, south, east, north in degrees (GeoJSON's order).
    var bbox: [Double]
    /// Metres from the asked point (searches around a point only).
    var distanceMetres: Double?

    init(_ entry: StreetCatalog.Entry) {
        id = entry.street.id
        name = entry.street.name
        compatible = entry.compatibility.compatible
        incompatibleReasons = entry.compatibility.reasons.map(\.rawValue)
        lengthMetres = (entry.length * 10).rounded() / 10
        bbox = [entry.street.west, entry.street.south, entry.street.east, entry.street.north]
        distanceMetres = entry.distance.map { ($0 * 10).rounded() / 10 }
    }
}

/// `GET /v1/streets?q=` and `GET /v1/streets?near=`: a page of streets, best first.
struct StreetListResponse: ResponseEncodable, Sendable {
    var streets: [StreetSummaryResponse]
    /// The cursor of the next page; absent on the last.
    var nextCursor: String?
    var attribution = MapDataAttribution.openStreetMap
}

/// `GET /v1/streets/{id}`: the street with its OSM ways and its geometry.
struct StreetDetailResponse: ResponseEncodable, Sendable {
    var id: Int64
    var name: String
    var compatible: Bool
    var incompatibleReasons: [String]
    var lengthMetres: Double
    var bbox: [Double]
    /// Its OSM way ids, ascending.
    var wayIds: [Int64]
    /// GeoJSON MultiLineString, one line per graph edge (`[lng, lat]`).
    var geometry: Geometry?
    var attribution = MapDataAttribution.openStreetMap

    init(_ entry: StreetCatalog.Entry, lines: [[(latitude: Double, longitude: Double)]]) {
        let summary = StreetSummaryResponse(entry)
        id = summary.id
        name = summary.name
        compatible = summary.compatible
        incompatibleReasons = summary.incompatibleReasons
        lengthMetres = summary.lengthMetres
        bbox = summary.bbox
        wayIds = entry.street.wayIDs
        let positions = lines.map { line in line.compactMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) }.map { Position($0) } }
            .filter { $0.count >= 2 }
        geometry = (try? MultiLineString(positions)).map(Geometry.multiLineString)
    }
}
