import Testing

@testable import Geo

/// Reference values are from Rosetta Code ("Haversine formula"), Chris Veness's Movable Type
/// Scripts ("Calculate distance, bearing and more between Latitude/Longitude points", R = 6371 km)
/// and Ed Williams's Aviation Formulary (unit sphere, angles in radians).
@Suite("Great-circle geodesy")
struct GreatCircleTests {
    let landsEnd = coordinate(dms(50, 3, 59), dms(-5, 42, 53))
    let johnOGroats = coordinate(dms(58, 38, 38), dms(-3, 4, 12))
    let lax = coordinate(dms(33, 57), dms(-118, 24))
    let jfk = coordinate(dms(40, 38), dms(-73, 47))

    @Test("the mean Earth radius is IUGG R1, 6,371,008.8 m")
    func meanRadius() {
        #expect(Earth.meanRadius == 6_371_008.8)
    }

    @Test("Nashville BNA to Los Angeles LAX is 2887.260 km on Rosetta Code's 6372.8 km sphere, 2886.444 km on 6371 km")
    func rosettaHaversine() {
        let nashville = coordinate(36.12, -86.67)
        let losAngeles = coordinate(33.94, -118.40)
        #expect(abs(nashville.distance(to: losAngeles, radius: 6_372_800) - 2_887_259.950_607_110_6) < 0.001)
        #expect(abs(nashville.distance(to: losAngeles, radius: 6_371_000) - 2_886_444.442_837_983) < 0.001)
    }

    @Test("Land's End to John o' Groats is 968.9 km on Movable Type's 6371 km sphere")
    func movableTypeDistance() {
        #expect(abs(landsEnd.distance(to: johnOGroats, radius: 6_371_000) - 968_900) < 50)
        // On the mean radius the answer differs only by the ratio of the radii.
        #expect(abs(landsEnd.distance(to: johnOGroats) - 968_900 * 6_371_008.8 / 6_371_000) < 50)
    }

    @Test("LAX to JFK is 0.623585 rad, 2144 nm, in the Aviation Formulary")
    func aviationFormularyDistance() {
        #expect(abs(lax.distance(to: jfk, radius: 1) - 0.623_585) < 0.000_001)
        #expect(abs(lax.distance(to: jfk) / 1852 - 2_144) < 10)
    }

    @Test("a point has no distance to itself and antipodes are half a circumference apart")
    func extremes() {
        #expect(landsEnd.distance(to: landsEnd) == 0)
        let antipodal = coordinate(0, 0).distance(to: coordinate(0, 180))
        #expect(abs(antipodal - .pi * Earth.meanRadius) < 0.001)
        #expect(abs(coordinate(90, 0).distance(to: coordinate(-90, 0)) - .pi * Earth.meanRadius) < 0.001)
    }

    @Test("the initial bearing from Land's End to John o' Groats is 009°07′11″")
    func movableTypeBearing() {
        #expect(abs(landsEnd.initialBearing(to: johnOGroats) - dms(9, 7, 11)) < 0.001)
    }

    @Test("leaving Baghdad for Osaka along the great circle you head 60°, not due east")
    func baghdadToOsaka() {
        let bearing = coordinate(35, 45).initialBearing(to: coordinate(35, 135))
        #expect(abs(bearing - 60) < 0.5)
    }

    @Test("the true course from LAX to JFK is 1.150035 rad, about 66°")
    func aviationFormularyCourse() {
        #expect(abs(lax.initialBearing(to: jfk).radians - 1.150_035) < 0.000_001)
    }

    @Test("bearings cover the whole compass in 0..<360")
    func compassRange() {
        let origin = coordinate(0, 0)
        #expect(origin.initialBearing(to: coordinate(1, 0)) == 0)
        #expect(abs(origin.initialBearing(to: coordinate(0, 1)) - 90) < 1e-9)
        #expect(abs(origin.initialBearing(to: coordinate(-1, 0)) - 180) < 1e-9)
        #expect(abs(origin.initialBearing(to: coordinate(0, -1)) - 270) < 1e-9)
        #expect(abs(coordinate(0, 179.5).initialBearing(to: coordinate(0, -179.5)) - 90) < 1e-9)
        #expect(origin.initialBearing(to: origin) == 0)
    }

    @Test("124.8 km on 096°01′18″ from 53°19′14″N 001°43′47″W reaches 53°11′18″N 000°08′00″E")
    func movableTypeDestination() {
        let start = coordinate(dms(53, 19, 14), dms(-1, 43, 47))
        let end = start.destination(bearing: dms(96, 1, 18), distance: 124_800, radius: 6_371_000)
        #expect(abs(end.latitude - dms(53, 11, 18)) < 1.0 / 3600)
        #expect(abs(end.longitude - dms(0, 8, 0)) < 1.0 / 3600)
    }

    @Test("100 nm from LAX on the 66° radial is 34°37′N 116°33′W")
    func aviationFormularyDestination() {
        let oneArcMinute = 1.0 / 60
        let end = lax.destination(bearing: 66, distance: 100 * oneArcMinute.radians, radius: 1)
        #expect(abs(end.latitude - dms(34, 37)) < oneArcMinute)
        #expect(abs(end.longitude - dms(-116, 33)) < oneArcMinute)
    }

    @Test("travelling east across the antimeridian lands in the western hemisphere")
    func destinationAcrossAntimeridian() {
        let end = coordinate(0, 179.9).destination(bearing: 90, distance: 0.2.radians * Earth.meanRadius)
        #expect(abs(end.longitude - -179.9) < 1e-9)
        #expect(abs(end.latitude) < 1e-9)
    }

    @Test("destination and distance are inverse over a range of bearings")
    func destinationInvertsDistance() {
        let start = coordinate(48.41, 15.6)
        for bearing in stride(from: 0.0, to: 360, by: 45) {
            let end = start.destination(bearing: bearing, distance: 12_345)
            #expect(abs(start.distance(to: end) - 12_345) < 0.001)
            #expect(abs(start.initialBearing(to: end) - bearing) < 1e-6)
        }
    }

    @Test("the midpoint of Land's End and John o' Groats is 54°21′44″N 004°31′50″W")
    func movableTypeMidpoint() {
        let middle = landsEnd.midpoint(to: johnOGroats)
        #expect(abs(middle.latitude - dms(54, 21, 44)) < 1.0 / 3600)
        #expect(abs(middle.longitude - dms(-4, 31, 50)) < 1.0 / 3600)
        #expect(abs(middle.distance(to: landsEnd) - middle.distance(to: johnOGroats)) < 0.001)
    }

    @Test("the midpoint across the antimeridian is on it, not at Greenwich")
    func midpointAcrossAntimeridian() {
        let middle = coordinate(10, 179).midpoint(to: coordinate(10, -179))
        #expect(abs(abs(middle.longitude) - 180) < 1e-9)
        #expect(middle.latitude > 10)
    }
}
