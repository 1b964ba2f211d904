import Foundation
import Testing

@testable import Geo

@Suite("Projection onto segments and polylines")
struct SegmentProjectionTests {
    /// One tenth of a degree of arc on the mean-radius sphere, in metres.
    let tenthOfADegree = 0.1.radians * Earth.meanRadius

    @Test("a point beside a short segment projects to the foot of the perpendicular")
    func shortSegmentInterior() {
        let start = coordinate(48.2000, 16.3700)
        let end = start.destination(bearing: 90, distance: 1_000)
        let middle = start.destination(bearing: 90, distance: 500)
        let beside = middle.destination(bearing: 0, distance: 30)
        let projection = Segment(from: start, to: end).projection(of: beside)
        #expect(abs(projection.fraction - 0.5) < 0.001)
        #expect(projection.point.distance(to: middle) < 0.5)
        #expect(abs(projection.distance - 30) < 0.1)
    }

    @Test("a point past either end projects onto that end, with fraction 0 or 1")
    func clampsToEnds() {
        let segment = Segment(from: coordinate(0, 0), to: coordinate(0, 0.01))
        let before = segment.projection(of: coordinate(0.001, -0.005))
        #expect(before.point == segment.start && before.fraction == 0)
        #expect(abs(before.distance - segment.start.distance(to: coordinate(0.001, -0.005))) < 1e-9)
        let after = segment.projection(of: coordinate(-0.001, 0.02))
        #expect(after.point == segment.end && after.fraction == 1)
    }

    @Test("a zero-length segment projects everything onto its only point")
    func degenerateSegment() {
        let stop = coordinate(43.7384, 7.4246)
        let near = Segment(from: stop, to: stop).projection(of: coordinate(43.7390, 7.4250))
        #expect(near.point == stop && near.fraction == 0)
        let far = Segment(from: stop, to: stop).projection(of: coordinate(-43, -170))
        #expect(far.point == stop && far.fraction == 0)
    }

    @Test("Movable Type's cross-track example: 307.5 m from the segment, 62.331 km along it")
    func movableTypeCrossTrack() {
        let segment = Segment(from: coordinate(53.3206, -1.7297), to: coordinate(53.1887, 0.1334))
        let projection = segment.projection(of: coordinate(53.2611, -0.7972))
        #expect(abs(projection.distance - 307.55) < 0.1)
        #expect(abs(segment.start.distance(to: projection.point, radius: 6_371_000) - 62_331) < 1)
    }

    @Test("a long meridian segment is projected on the sphere, not on a flat map")
    func longSegmentUsesSphere() {
        // The meridian point nearest to (30°N, 10°E) lies at tan φ = tan 30° / cos 10°,
        // arcsin(cos 30° sin 10°) radians away.
        let projection = Segment(from: coordinate(0, 0), to: coordinate(60, 0)).projection(of: coordinate(30, 10))
        let crossTrack = asin(cos(30.0.radians) * sin(10.0.radians)) * Earth.meanRadius
        #expect(abs(projection.distance - crossTrack) < 0.01)
        #expect(abs(projection.point.latitude - atan(tan(30.0.radians) / cos(10.0.radians)).degrees) < 1e-9)
        #expect(abs(projection.point.longitude) < 1e-9)
        #expect(abs(projection.fraction - projection.point.latitude / 60) < 1e-9)
    }

    @Test("the flat-map and spherical projections agree within centimetres at the 1 km switch-over")
    func methodsAgree() {
        let start = coordinate(60, 25)
        let point = start.destination(bearing: 30, distance: 600)
        let flat = Segment(from: start, to: start.destination(bearing: 70, distance: 990)).projection(of: point)
        // 20 m further along the same great circle, the segment is too long for the flat map.
        let spherical = Segment(from: start, to: start.destination(bearing: 70, distance: 1_010)).projection(of: point)
        #expect(abs(flat.distance - spherical.distance) < 0.05)
        #expect(flat.point.distance(to: spherical.point) < 0.1)
    }

    @Test("a segment across the antimeridian is the short way round")
    func antimeridianSegment() {
        let segment = Segment(from: coordinate(0, 179.99), to: coordinate(0, -179.99))
        let projection = segment.projection(of: coordinate(0.001, 180))
        #expect(abs(projection.fraction - 0.5) < 1e-6)
        #expect(abs(abs(projection.point.longitude) - 180) < 1e-9)
        #expect(abs(projection.distance - tenthOfADegree / 100) < 0.01)
    }

    @Test("the projection onto a polyline names the segment and the distance along the line")
    func polylineProjection() {
        // An L: 1 km east, then 1 km north.
        let start = coordinate(47.0, 8.0)
        let corner = start.destination(bearing: 90, distance: 1_000)
        let end = corner.destination(bearing: 0, distance: 1_000)
        let line = Polyline([start, corner, end])
        let beside = corner.destination(bearing: 0, distance: 400).destination(bearing: 90, distance: 25)
        let projection = try! #require(line.projection(of: beside))
        #expect(projection.segmentIndex == 1)
        #expect(abs(projection.fraction - 0.4) < 0.001)
        #expect(abs(projection.distance - 25) < 0.1)
        #expect(abs(projection.distanceAlong - 1_400) < 0.5)
    }

    @Test("a polyline of one coordinate projects onto it and an empty one has no projection")
    func shortPolylines() {
        let stop = coordinate(48.4102, 15.6033)
        let projection = Polyline([stop]).projection(of: coordinate(48.41, 15.6))
        #expect(projection?.point == stop && projection?.segmentIndex == 0 && projection?.distanceAlong == 0)
        #expect(Polyline([]).projection(of: stop) == nil)
    }

    @Test("on a tie the earlier segment wins, so progress never jumps ahead")
    func tieGoesToEarlierSegment() {
        let line = Polyline([coordinate(0, 0), coordinate(0, 0.01), coordinate(0, 0)])
        let projection = try! #require(line.projection(of: coordinate(0.001, 0.005)))
        #expect(projection.segmentIndex == 0)
    }
}
