@testable import Navigation
@testable import RoadNetwork
import Testing

@Suite("navigation: a leg's summary (OSRM's: the two longest named roads, in route order)")
struct LegSummaryTests {
    static func step(_ name: String, ref: String? = nil, _ metres: Double) -> RouteStep {
        RouteStep(maneuver: RouteManeuver(kind: .turn, modifier: .left, location: RoadPoint(latitude: 48.4, longitude: 15.6), bearingBefore: 0,
                                          bearingAfter: 90),
                  name: name, ref: ref, wayClass: "residential", distance: metres, duration: metres / 5, weight: metres, geometry: [])
    }

    @Test("metres add up per road over its steps; a ref stands in for a missing name; unnamed ways are left out; equal lengths still give two")
    func summaries() {
        func s(_ name: String, ref: String? = nil, _ metres: Double) -> RouteStep { Self.step(name, ref: ref, metres) }
        #expect(LegResponse.summary([]) == "")
        #expect(LegResponse.summary([s("", 500)]) == "", "unnamed only")
        #expect(LegResponse.summary([s("Ringstraße", 300)]) == "Ringstraße")
        #expect(LegResponse.summary([s("A", 100), s("B", 400), s("C", 300), s("D", 50)]) == "B, C", "the two longest, in route order")
        #expect(LegResponse.summary([s("C", 300), s("A", 100), s("B", 400)]) == "C, B", "route order, not length order")
        #expect(LegResponse.summary([s("A", 200), s("B", 300), s("A", 200), s("C", 350)]) == "A, C", "A's two steps add up to 400")
        #expect(LegResponse.summary([s("", ref: "B33", 500), s("Donaulände", 100), s("", 900)]) == "B33, Donaulände")
        #expect(LegResponse.summary([s("A", 100), s("B", 100), s("C", 100)]).split(separator: ",").count == 2)
    }
}
