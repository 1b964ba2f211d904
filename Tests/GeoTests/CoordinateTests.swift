import Foundation
import Testing

@testable import Geo

@Suite("Coordinate")
struct CoordinateTests {
    @Test("accepts the poles and both sides of the antimeridian")
    func acceptsLimits() throws {
        for (latitude, longitude) in [(90.0, 180.0), (-90.0, -180.0), (0.0, 0.0), (48.41, 15.6)] {
            let value = try Coordinate(latitude: latitude, longitude: longitude)
            #expect(value.latitude == latitude && value.longitude == longitude)
        }
    }

    @Test("rejects out-of-range and non-finite degrees with the reason")
    func rejectsInvalid() {
        #expect(throws: CoordinateError.latitudeOutOfRange(90.0001)) {
            try Coordinate(latitude: 90.0001, longitude: 0)
        }
        #expect(throws: CoordinateError.longitudeOutOfRange(-180.5)) {
            try Coordinate(latitude: 0, longitude: -180.5)
        }
        #expect(throws: CoordinateError.nonFinite) { try Coordinate(latitude: .nan, longitude: 0) }
        #expect(throws: CoordinateError.nonFinite) { try Coordinate(latitude: 0, longitude: -.infinity) }
        #expect((try? Coordinate(latitude: 100, longitude: 0)) == nil)
    }

    @Test("travels over HTTP as { lat, lng }")
    func codable() throws {
        let json = String(decoding: try JSONEncoder().encode(coordinate(48.4102, 15.6033)), as: UTF8.self)
        #expect(json.contains(#""lat":48.4102"#) && json.contains(#""lng":15.6033"#))
        #expect(try decode(Coordinate.self, #"{"lat": -33.86, "lng": 151.21}"#) == coordinate(-33.86, 151.21))
    }

    @Test("a request with an impossible latitude fails at the lat field with a CoordinateError")
    func decodingRejectsRange() {
        let error = #expect(throws: DecodingError.self) {
            try decode([Coordinate].self, #"[{"lat": 0, "lng": 0}, {"lat": 91, "lng": 0}]"#)
        }
        #expect(underlying(CoordinateError.self, of: error!) == .latitudeOutOfRange(91))
        #expect(codingPath(of: error!) == "1.lat")
        let longitudeError = #expect(throws: DecodingError.self) {
            try decode(Coordinate.self, #"{"lat": 0, "lng": 200}"#)
        }
        #expect(codingPath(of: longitudeError!) == "lng")
        #expect(throws: DecodingError.self) { try decode(Coordinate.self, #"{"latitude": 1, "lng": 2}"#) }
    }
}
