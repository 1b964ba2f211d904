import Foundation
import Testing

@testable import Geo

@Suite("Bounding boxes")
struct BoundingBoxTests {
    /// The antimeridian-crossing example of RFC 7946 §5.2: Fiji-ish, 177°E to 178°W.
    let acrossAntimeridian = try! BoundingBox(queryValue: "177.0,-20.0,-178.0,-5.0")
    let wachau = try! BoundingBox(queryValue: "15.3,48.3,15.7,48.45")

    @Test("?bbox=minLng,minLat,maxLng,maxLat parses into south-west and north-east corners")
    func parsesQueryValue() throws {
        let box = try BoundingBox(queryValue: " 15.3, 48.3 ,15.7,48.45")
        #expect(box.southWest == coordinate(48.3, 15.3))
        #expect(box.northEast == coordinate(48.45, 15.7))
        #expect(!box.crossesAntimeridian)
        #expect(try BoundingBox(queryValue: box.queryValue) == box)
    }

    @Test("a malformed ?bbox= value says what is wrong")
    func rejectsBadQueryValues() {
        #expect(throws: BoundingBoxError.wrongComponentCount(3)) { try BoundingBox(queryValue: "1,2,3") }
        #expect(throws: BoundingBoxError.wrongComponentCount(5)) { try BoundingBox(queryValue: "1,2,3,4,") }
        #expect(throws: BoundingBoxError.notANumber(index: 2)) { try BoundingBox(queryValue: "1,2,east,4") }
        #expect(throws: BoundingBoxError.notANumber(index: 0)) { try BoundingBox(queryValue: ",2,3,4") }
        #expect(throws: BoundingBoxError.invalidCorner(.latitudeOutOfRange(95))) {
            try BoundingBox(queryValue: "0,0,1,95")
        }
        #expect(throws: BoundingBoxError.invalidCorner(.nonFinite)) { try BoundingBox(queryValue: "nan,0,1,1") }
        #expect(throws: BoundingBoxError.southAboveNorth(south: 10, north: 5)) {
            try BoundingBox(queryValue: "0,10,1,5")
        }
    }

    @Test("a box across the antimeridian contains points on both sides of it and none at Greenwich")
    func containsAcrossAntimeridian() {
        #expect(acrossAntimeridian.crossesAntimeridian)
        #expect(acrossAntimeridian.contains(coordinate(-10, 179)))
        #expect(acrossAntimeridian.contains(coordinate(-10, -179)))
        #expect(acrossAntimeridian.contains(coordinate(-10, 180)))
        #expect(acrossAntimeridian.contains(coordinate(-10, -180)))
        #expect(!acrossAntimeridian.contains(coordinate(-10, 0)))
        #expect(!acrossAntimeridian.contains(coordinate(-10, 176)))
        #expect(!acrossAntimeridian.contains(coordinate(-21, 179)))
    }

    @Test("edges belong to the box")
    func edgesAreInside() {
        #expect(wachau.contains(coordinate(48.3, 15.3)))
        #expect(wachau.contains(coordinate(48.45, 15.7)))
        #expect(!wachau.contains(coordinate(48.2999, 15.5)))
        #expect(BoundingBox.world.contains(coordinate(-90, 180)))
    }

    @Test("boxes intersect across the antimeridian and not when apart")
    func intersects() throws {
        let eastOfFiji = try BoundingBox(queryValue: "-179,-15,-170,0")
        let westOfFiji = try BoundingBox(queryValue: "170,-15,176,0")
        #expect(acrossAntimeridian.intersects(eastOfFiji) && eastOfFiji.intersects(acrossAntimeridian))
        #expect(!acrossAntimeridian.intersects(westOfFiji) && !westOfFiji.intersects(acrossAntimeridian))
        #expect(acrossAntimeridian.intersects(.world))
        #expect(!wachau.intersects(try BoundingBox(queryValue: "15.3,48.5,15.7,49")))
        #expect(wachau.intersects(try BoundingBox(queryValue: "15.7,48.45,16,49")))  // touching corners
    }

    @Test("the union is the smallest box, crossing the antimeridian when that is narrower")
    func union() throws {
        let west = try BoundingBox(queryValue: "178,0,179,1")
        let east = try BoundingBox(queryValue: "-179,2,-178,3")
        #expect(west.union(east) == (try BoundingBox(queryValue: "178,0,-178,3")))
        #expect(east.union(west) == west.union(east))
        let vienna = try BoundingBox(queryValue: "16.2,48.1,16.5,48.3")
        #expect(wachau.union(vienna) == (try BoundingBox(queryValue: "15.3,48.1,16.5,48.45")))
        #expect(wachau.union(wachau) == wachau)
        let halves = try BoundingBox(queryValue: "-180,-10,0,10").union(try BoundingBox(queryValue: "0,-20,180,20"))
        #expect(halves.west == -180 && halves.east == 180 && halves.south == -20 && halves.north == 20)
    }

    @Test("the box covering points leaves out the widest empty stretch of longitude")
    func covering() throws {
        #expect(BoundingBox(covering: [Coordinate]()) == nil)
        let islands = [coordinate(-17, 178), coordinate(-19, -179.5), coordinate(-16, 179)]
        let fiji = try #require(BoundingBox(covering: islands))
        #expect(fiji == (try BoundingBox(queryValue: "178,-19,-179.5,-16")))
        let krems = try #require(BoundingBox(covering: [coordinate(48.41, 15.6), coordinate(48.39, 15.62)]))
        #expect(krems == (try BoundingBox(queryValue: "15.6,48.39,15.62,48.41")))
        let single = try #require(BoundingBox(covering: [coordinate(1, 2)]))
        #expect(single.southWest == single.northEast)
    }

    @Test("expanding by 1 km adds 1 km of latitude and more degrees of longitude towards the poles")
    func expanded() {
        let box = wachau.expanded(by: 1_000)
        let oneKilometre = (1_000 / Earth.meanRadius).degrees
        #expect(abs(box.south - (48.3 - oneKilometre)) < 1e-12 && abs(box.north - (48.45 + oneKilometre)) < 1e-12)
        // Every point 999 m from any corner of the box lies inside the expanded box.
        for corner in [wachau.southWest, wachau.northEast, coordinate(48.45, 15.3), coordinate(48.3, 15.7)] {
            for bearing in stride(from: 0.0, to: 360, by: 15) {
                #expect(box.contains(corner.destination(bearing: bearing, distance: 999)))
            }
        }
        #expect(!box.contains(wachau.northEast.destination(bearing: 90, distance: 1_001)))
        #expect(wachau.expanded(by: 0) == wachau && wachau.expanded(by: -5) == wachau)
    }

    @Test("expanding across the antimeridian or past a pole stays a valid box")
    func expandedExtremes() throws {
        let grown = acrossAntimeridian.expanded(by: 50_000)
        #expect(grown.crossesAntimeridian && grown.west < 177 && grown.east > -178)
        let arctic = try BoundingBox(queryValue: "10,89.9,11,89.95").expanded(by: 20_000)
        #expect(arctic.north == 90 && arctic.west == -180 && arctic.east == 180)
        #expect(wachau.expanded(by: 30_000_000) == .world && wachau.expanded(by: .infinity) == .world)
    }

    @Test("a bbox member is [west, south, east, north] and a 3-D one drops its altitudes")
    func codable() throws {
        #expect(String(decoding: try JSONEncoder().encode(acrossAntimeridian), as: UTF8.self) == "[177,-20,-178,-5]")
        let threeDimensional = try decode(BoundingBox.self, "[100.0, 0.0, -100.0, 105.0, 1.0, 0.0]")
        #expect(threeDimensional == (try BoundingBox(queryValue: "100,0,105,1")))
        let error = #expect(throws: DecodingError.self) { try decode(BoundingBox.self, "[1, 2, 3]") }
        #expect(underlying(BoundingBoxError.self, of: error!) == .wrongComponentCount(3))
    }
}
