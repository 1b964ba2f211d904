import Testing

@testable import Geo

@Suite("Encoded polylines")
struct EncodedPolylineTests {
    /// The worked example of Google's "Encoded Polyline Algorithm Format" page.
    let googleExample = Polyline([coordinate(38.5, -120.2), coordinate(40.7, -120.95), coordinate(43.252, -126.453)])

    @Test("Google's documented example encodes to _p~iF~ps|U_ulLnnqC_mqNvxq`@")
    func encodesGoogleExample() {
        #expect(googleExample.encoded() == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test("Google's documented example decodes to (38.5,-120.2) (40.7,-120.95) (43.252,-126.453)")
    func decodesGoogleExample() throws {
        #expect(try Polyline(encoded: "_p~iF~ps|U_ulLnnqC_mqNvxq`@") == googleExample)
    }

    @Test("Google's single-value example: longitude -179.9832104 encodes as `~oia@")
    func singleValue() {
        #expect(Polyline([coordinate(0, -179.9832104)]).encoded() == "?`~oia@")
    }

    @Test("at precision 6 the same example is _izlhA~rlgdF_{geC~ywl@_kwzCn`{nI, as OSRM and Valhalla write it")
    func precisionSix() throws {
        let encoded = "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI"
        #expect(googleExample.encoded(precision: .six) == encoded)
        #expect(try Polyline(encoded: encoded, precision: .six) == googleExample)
    }

    @Test("a trace round-trips within half a unit of the last decimal place at both precisions")
    func roundTrip() throws {
        let start = coordinate(-33.8688, 151.2093)
        let trace = Polyline((0..<500).map { start.destination(bearing: Double($0 % 360), distance: Double($0) * 7.3) })
        for precision in PolylinePrecision.allCases {
            let decoded = try Polyline(encoded: trace.encoded(precision: precision), precision: precision)
            let halfUnit = 0.5 / precision.unitsPerDegree + 1e-12
            #expect(decoded.coordinates.count == trace.coordinates.count)
            for (original, copy) in zip(trace.coordinates, decoded.coordinates) {
                #expect(abs(original.latitude - copy.latitude) <= halfUnit)
                #expect(abs(original.longitude - copy.longitude) <= halfUnit)
            }
        }
    }

    @Test("the poles, the antimeridian and the empty line survive the round trip")
    func extremes() throws {
        let line = Polyline([coordinate(90, 180), coordinate(-90, -180), coordinate(0, 0)])
        for precision in PolylinePrecision.allCases {
            #expect(try Polyline(encoded: line.encoded(precision: precision), precision: precision) == line)
        }
        #expect(Polyline([]).encoded() == "")
        #expect(try Polyline(encoded: "").coordinates.isEmpty)
    }

    @Test("every truncation of a valid polyline is rejected with an error, never a crash")
    func truncated() throws {
        let encoded = Array("_p~iF~ps|U_ulLnnqC_mqNvxq`@".utf8)
        // Cutting after a whole latitude–longitude pair leaves a shorter valid polyline.
        let pairEnds = [10: 1, 18: 2]
        for length in 1..<encoded.count {
            let prefix = String(decoding: encoded[..<length], as: UTF8.self)
            if let count = pairEnds[length] {
                #expect(try Polyline(encoded: prefix).coordinates == Array(googleExample.coordinates.prefix(count)))
            } else {
                #expect(throws: EncodedPolylineError.truncated(offset: length)) { try Polyline(encoded: prefix) }
            }
        }
    }

    @Test("characters outside ? … ~ are rejected at their byte offset")
    func invalidCharacters() {
        #expect(throws: EncodedPolylineError.invalidCharacter(offset: 2)) { try Polyline(encoded: "_p iF~ps|U") }
        #expect(throws: EncodedPolylineError.invalidCharacter(offset: 0)) { try Polyline(encoded: "é") }
        #expect(throws: EncodedPolylineError.invalidCharacter(offset: 1)) { try Polyline(encoded: "?\u{0}") }
    }

    @Test("endless continuation chunks are rejected instead of overflowing")
    func overlongValue() {
        #expect(throws: EncodedPolylineError.valueTooLong(offset: 7)) {
            try Polyline(encoded: String(repeating: "~", count: 100))
        }
    }

    @Test("a latitude beyond 90° is rejected with the index of the coordinate")
    func outOfRange() {
        // Two identical 45.5° steps north add up to 91°.
        let once = Polyline([coordinate(45.5, 0)]).encoded()
        #expect(throws: EncodedPolylineError.coordinateOutOfRange(index: 1, .latitudeOutOfRange(91))) {
            try Polyline(encoded: once + once)
        }
    }
}
