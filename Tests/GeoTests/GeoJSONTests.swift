import Foundation
import Testing

@testable import Geo

@Suite("GeoJSON (RFC 7946)")
struct GeoJSONTests {
    @Test("the §1.5 example FeatureCollection decodes with its geometries and properties")
    func decodesExample() throws {
        let collection = try decode(FeatureCollection.self, RFC7946Examples.featureCollection)
        #expect(collection.features.count == 3)
        guard case .point(let point)? = collection.features[0].geometry else { Issue.record("not a point"); return }
        #expect(point.coordinates == (try Position(longitude: 102, latitude: 0.5)))
        guard case .lineString(let line)? = collection.features[1].geometry else { Issue.record("not a line"); return }
        #expect(line.coordinates.count == 4)
        #expect(collection.features[1].properties == ["prop0": "value0", "prop1": 0])
        #expect(collection.features[2].properties?["prop1"] == ["this": "that"])
    }

    @Test("the §1.5 example and every Appendix A geometry survive encode and decode unchanged")
    func roundTrips() throws {
        let collection = try decode(FeatureCollection.self, RFC7946Examples.featureCollection)
        #expect(try roundTrip(collection) == collection)
        for json in RFC7946Examples.geometries {
            let geometry = try decode(Geometry.self, json)
            #expect(try roundTrip(geometry) == geometry)
            #expect(try decode(GeoJSONObject.self, json) == .geometry(geometry))
        }
    }

    @Test("Appendix A geometries decode to the matching cases, holes and all")
    func geometryCases() throws {
        let decoded = try RFC7946Examples.geometries.map { try decode(Geometry.self, $0) }
        guard case .polygon(let withHole) = decoded[3] else { Issue.record("not a polygon"); return }
        #expect(withHole.exteriorRing.count == 5 && withHole.holes.count == 1)
        guard case .multiPolygon(let multi) = decoded[6] else { Issue.record("not a multipolygon"); return }
        #expect(multi.coordinates.map(\.count) == [1, 2])
        guard case .geometryCollection(let collection) = decoded[7] else { Issue.record("not a collection"); return }
        #expect(collection.geometries.count == 2)
    }

    @Test("the written form has a type member, positions longitude first, and no bbox unless set")
    func encodedShape() throws {
        let point = Point(Position(coordinate(48.41, 15.6), altitude: 203))
        let json = String(decoding: try JSONEncoder().encode(Geometry.point(point)), as: UTF8.self)
        #expect(json.contains(#""type":"Point""#) && json.contains("[15.6,48.41,203]") && !json.contains("bbox"))
    }

    @Test("a Feature always writes geometry and properties, null when absent, and keeps string or number ids")
    func featureMembers() throws {
        let unlocated = Feature(id: 7, geometry: nil)
        let json = String(decoding: try JSONEncoder().encode(unlocated), as: UTF8.self)
        #expect(json.contains(#""geometry":null"#) && json.contains(#""properties":null"#))
        #expect(json.contains(#""id":7"#))
        #expect(try roundTrip(unlocated) == unlocated)
        let boxed = try decode(Feature.self, RFC7946Examples.featureWithStringID)
        #expect(boxed.id == "f-1" && boxed.properties == nil)
        #expect(boxed.bbox == (try BoundingBox(queryValue: "-10,-10,10,10")))
        #expect(try roundTrip(boxed) == boxed)
        let booleanID = #"{"type": "Feature", "id": true, "geometry": null, "properties": null}"#
        #expect(throws: DecodingError.self) { try decode(Feature.self, booleanID) }
    }

    @Test("a feature missing geometry and properties reads them as null; foreign members are ignored")
    func tolerantFeature() throws {
        let feature = try decode(Feature.self, #"{"type": "Feature", "title": "foreign member"}"#)
        #expect(feature == Feature(geometry: nil))
    }

    @Test("the §5 3-D bbox reads as its 2-D extent and the §5.2 antimeridian bbox crosses it")
    func bboxMembers() throws {
        let collection = try decode(FeatureCollection.self, RFC7946Examples.threeDimensionalBBox)
        #expect(collection.bbox == (try BoundingBox(queryValue: "100,0,105,1")))
        let fiji = try decode(Feature.self, RFC7946Examples.antimeridianFeature)
        #expect(fiji.bbox?.crossesAntimeridian == true)
        #expect(fiji.bbox?.contains(coordinate(-10, -179)) == true)
        #expect(try roundTrip(fiji) == fiji)
    }

    @Test("JSON property values keep their kinds: null, booleans, numbers, strings, arrays, objects")
    func jsonValues() throws {
        let value = try decode(JSONValue.self, #"{"a": null, "b": true, "c": 1.5, "d": "x", "e": [1, false], "f": {}}"#)
        #expect(value == ["a": nil, "b": true, "c": 1.5, "d": "x", "e": [1, false], "f": [:]])
        #expect(try roundTrip(value) == value)
    }

    @Test("a LineString with fewer than two positions is rejected at its coordinates")
    func shortLineString() {
        let error = #expect(throws: DecodingError.self) {
            try decode(Geometry.self, #"{"type": "LineString", "coordinates": [[100.0, 0.0]]}"#)
        }
        #expect(underlying(GeoJSONError.self, of: error!) == .tooFewPositions(minimum: 2, found: 1))
        #expect(codingPath(of: error!) == "coordinates")
        #expect(throws: GeoJSONError.tooFewPositions(minimum: 2, found: 0)) { try LineString([]) }
    }

    @Test("a polygon ring that does not close, is too short, or is missing is rejected")
    func badRings() {
        let open = #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}"#
        let short = #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}"#
        let none = #"{"type": "Polygon", "coordinates": []}"#
        let openHole = """
            {"type": "MultiPolygon", "coordinates": [[
                [[0, 0], [3, 0], [3, 3], [0, 0]],
                [[1, 1], [2, 1], [2, 2], [1, 2]]
            ]]}
            """
        let expectations: [(String, GeoJSONError)] = [
            (open, .unclosedRing), (short, .tooFewPositions(minimum: 4, found: 3)),
            (none, .missingExteriorRing), (openHole, .unclosedRing),
        ]
        for (json, expected) in expectations {
            let error = #expect(throws: DecodingError.self) { try decode(Geometry.self, json) }
            #expect(underlying(GeoJSONError.self, of: error!) == expected)
        }
    }

    @Test("a wrong or unknown type member is rejected with what was expected")
    func wrongTypes() {
        let asPoint = #expect(throws: DecodingError.self) {
            try decode(Point.self, #"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#)
        }
        #expect(underlying(GeoJSONError.self, of: asPoint!) == .unexpectedType(expected: "Point", found: "LineString"))
        #expect(codingPath(of: asPoint!) == "type")
        let feature = #expect(throws: DecodingError.self) {
            try decode(Geometry.self, #"{"type": "Feature", "geometry": null, "properties": null}"#)
        }
        let notAGeometry = GeoJSONError.unexpectedType(expected: "a geometry type", found: "Feature")
        #expect(underlying(GeoJSONError.self, of: feature!) == notAGeometry)
        let unknown = #expect(throws: DecodingError.self) { try decode(GeoJSONObject.self, #"{"type": "Circle"}"#) }
        let circle = GeoJSONError.unexpectedType(expected: "a geometry type", found: "Circle")
        #expect(underlying(GeoJSONError.self, of: unknown!) == circle)
        #expect(throws: DecodingError.self) { try decode(Geometry.self, #"{"coordinates": [0, 0]}"#) }
    }

    @Test("positions need two or three numbers within range, reported where they sit")
    func badPositions() {
        let tooShort = #expect(throws: DecodingError.self) {
            try decode(Geometry.self, #"{"type": "MultiPoint", "coordinates": [[0, 0], [1]]}"#)
        }
        #expect(underlying(GeoJSONError.self, of: tooShort!) == .invalidPosition(elementCount: 1))
        #expect(codingPath(of: tooShort!) == "coordinates.1")
        let tooLong = #expect(throws: DecodingError.self) { try decode(Position.self, "[0, 0, 0, 0]") }
        #expect(underlying(GeoJSONError.self, of: tooLong!) == .invalidPosition(elementCount: 4))
        let swapped = #expect(throws: DecodingError.self) { try decode(Position.self, "[10, 95]") }
        #expect(underlying(GeoJSONError.self, of: swapped!) == .positionOutOfRange(.latitudeOutOfRange(95)))
        #expect(throws: DecodingError.self) { try decode(Position.self, #"["0", "0"]"#) }
    }

    @Test("a feature collection reports a bad geometry deep inside at its full path")
    func nestedErrorPath() {
        let json = """
            {"type": "FeatureCollection", "features": [
                {"type": "Feature", "geometry": null, "properties": {}},
                {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0]]}}
            ]}
            """
        let error = #expect(throws: DecodingError.self) { try decode(FeatureCollection.self, json) }
        #expect(codingPath(of: error!) == "features.1.geometry.coordinates")
    }
}
