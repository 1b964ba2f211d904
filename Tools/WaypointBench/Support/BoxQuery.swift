import Foundation
import RoadNetwork

/// A bbox request of path-review's approved network (`GET /v1/paths?bbox=west,south,east,north&zoom=Z`): the box, the
/// zoom, and the city it lies in. Drawn by `waypoint-bench paths` and by the gateway benchmark's bike mix.
struct BoxQuery: Sendable {
    var city: Int
    var west: Double, south: Double, east: Double, north: Double
    var zoom: Int

    /// Metres across a bbox request (a phone's or a small window's city viewport at zoom 14–16).
    static let boxSize = 1_000.0...3_000.0
    static let zooms = 14...16

    var query: String {
        "/v1/paths?bbox=\(Self.format(west)),\(Self.format(south)),\(Self.format(east)),\(Self.format(north))&zoom=\(zoom)"
    }

    /// A city viewport centred on `centre`: 1–3 km wide, 0.6–1 times as high, zoom 14–16.
    static func viewport(city: Int, around centre: RoadPoint, random: inout SeededGenerator) -> BoxQuery {
        let width = Double.random(in: boxSize, using: &random), height = width * Double.random(in: 0.6...1.0, using: &random)
        let dLat = height / 2 / 111_195, dLng = width / 2 / (111_195 * cos(centre.latitude * .pi / 180))
        return BoxQuery(city: city, west: centre.longitude - dLng, south: centre.latitude - dLat, east: centre.longitude + dLng,
                        north: centre.latitude + dLat, zoom: Int.random(in: zooms, using: &random))
    }

    private static func format(_ degrees: Double) -> String { String(format: "%.6f", degrees) }
}
