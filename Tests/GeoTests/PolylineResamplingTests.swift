import Foundation
import Geo
import Testing

@Suite("Polyline points at equal distances")
struct PolylineResamplingTests {
    /// Ground truth by construction: a line of three great-circle legs built with `destination`, whose lengths are known.
    @Test("every point lies the step further along than the one before, across corners; the end comes last; no point twice")
    func equalSteps() throws {
        let start = try Coordinate(latitude: 48.41, longitude: 15.60)
        let a = start.destination(bearing: 90, distance: 95)
        let b = a.destination(bearing: 0, distance: 40)
        let end = b.destination(bearing: 200, distance: 17.5)
        let line = Polyline([start, a, b, end])
        let points = line.points(every: 10)
        // 152.5 m: points at 0, 10, …, 150 and the end.
        #expect(points.count == 17)
        #expect(points.first == start && points.last == end)
        // Along the line (the length of the line up to each point's projection) they are 10 m apart.
        let along = points.map { line.projection(of: $0)!.distanceAlong }
        for (previous, next) in zip(along, along.dropFirst().dropLast()) {
            #expect(abs(next - previous - 10) < 1e-6, "\(previous) → \(next)")
        }
        #expect(abs(along[along.count - 1] - 152.5) < 1e-6)
        #expect(Polyline([start]).points(every: 10) == [start], "a single point is itself")
        #expect(Polyline([]).points(every: 10).isEmpty)
        #expect(Polyline([start, a]).points(every: 95) == [start, a], "a step landing on the end does not repeat it")
    }
}
