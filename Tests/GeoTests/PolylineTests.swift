import Foundation
import Testing

@testable import Geo

@Suite("Polyline length and simplification")
struct PolylineTests {
    @Test("the length is the sum of the great-circle legs")
    func length() {
        let line = Polyline([coordinate(0, 0), coordinate(0, 1), coordinate(1, 1)])
        let oneDegree = 1.0.radians * Earth.meanRadius
        #expect(abs(line.length - 2 * oneDegree) < 0.001)
        #expect(Polyline([]).length == 0)
        #expect(Polyline([coordinate(1, 1)]).length == 0)
    }

    @Test("Douglas–Peucker reduces a noisy right angle to its three corners")
    func rightAngle() {
        // 1 km east then 1 km north, a fix every 10 m wobbling ±2 m sideways.
        let start = coordinate(48.4, 15.6)
        var fixes = [start]
        for step in 1...200 {
            let leg = step <= 100 ? (bearing: 90.0, base: start, along: Double(step) * 10)
                : (bearing: 0.0, base: start.destination(bearing: 90, distance: 1_000), along: Double(step - 100) * 10)
            let onLine = leg.base.destination(bearing: leg.bearing, distance: leg.along)
            let wobble = step % 2 == 0 ? 2.0 : -2.0
            fixes.append(step % 100 == 0 ? onLine : onLine.destination(bearing: leg.bearing + 90, distance: wobble))
        }
        let simplified = Polyline(fixes).simplified(tolerance: 5)
        #expect(simplified.coordinates == [fixes[0], fixes[100], fixes[200]])
        #expect(Polyline(fixes).simplified(tolerance: 1).coordinates.count > 150)
    }

    @Test("Douglas–Peucker keeps the peaks of a zigzag that exceed the tolerance")
    func zigzag() {
        // Peaks 50 m off the baseline every 100 m, and small 3 m ripples in between.
        let start = coordinate(0, 0)
        let points = (0...20).map { index -> Coordinate in
            let onBaseline = start.destination(bearing: 90, distance: Double(index) * 50)
            let offset = index % 2 == 1 ? 50.0 : (index % 4 == 0 ? 0 : 3)
            return offset == 0 ? onBaseline : onBaseline.destination(bearing: 0, distance: offset)
        }
        let line = Polyline(points)
        #expect(line.simplified(tolerance: 10).coordinates.count == 21)
        #expect(line.simplified(tolerance: 60).coordinates == [points[0], points[20]])
    }

    @Test("a trace that doubles back keeps its turning point")
    func doublesBack() {
        let points = [coordinate(0, 0), coordinate(0, 0.01), coordinate(0, 0.005)]
        #expect(Polyline(points).simplified(tolerance: 10).coordinates == points)
    }

    @Test("short lines, negative and NaN tolerances leave the line as it was")
    func trivialCases() {
        let two = Polyline([coordinate(0, 0), coordinate(1, 1)])
        #expect(two.simplified(tolerance: 1_000_000) == two)
        let three = Polyline([coordinate(0, 0), coordinate(0, 0.5), coordinate(0, 1)])
        #expect(three.simplified(tolerance: -1) == three)
        #expect(three.simplified(tolerance: .nan) == three)
        #expect(three.simplified(tolerance: 0).coordinates.count == 2)
    }

    @Test("a ride of 20,000 fixes simplifies without recursion in well under a second")
    func longTrace() {
        let start = coordinate(48.2, 16.37)
        let fixes = (0..<20_000).map { index in
            // A gentle S-curve: a sine of 200 m amplitude along a 100 km track.
            let along = start.destination(bearing: 90, distance: Double(index) * 5)
            return along.destination(bearing: 0, distance: 200 * sin(Double(index) / 2_000 * .pi))
        }
        let simplified = Polyline(fixes).simplified(tolerance: 2)
        #expect(simplified.coordinates.count < 500)
        #expect(simplified.coordinates.first == fixes.first && simplified.coordinates.last == fixes.last)
        for fix in fixes.striding(by: 97) {
            #expect(simplified.projection(of: fix)!.distance <= 2.001)
        }
    }

    @Test("a line string and a polyline convert both ways, dropping altitude")
    func lineStringConversion() throws {
        let line = Polyline([coordinate(0, 0), coordinate(1, 1)])
        #expect(Polyline(try LineString(line)) == line)
        let withAltitude = try LineString([Position(coordinate(0, 0), altitude: 200), Position(coordinate(1, 1))])
        #expect(Polyline(withAltitude) == line)
        #expect(throws: GeoJSONError.tooFewPositions(minimum: 2, found: 1)) {
            try LineString(Polyline([coordinate(0, 0)]))
        }
    }
}

extension Array {
    /// Every `step`-th element, starting with the first.
    fileprivate func striding(by step: Int) -> [Element] {
        stride(from: 0, to: count, by: step).map { self[$0] }
    }
}
