import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import RecordTrip
import RecordTripAnalysis
import ServiceKit
import ServiceTesting
import Testing

/// Samples contract fuzzing sent to `POST /v1/trips/preview` (schemathesis, seed 20251116): absurd but finite numbers
/// — latitudes of 10¹⁵¹, times of 10¹²⁹ and 10⁻³⁰⁹, accuracies of ±10²⁴³. The first of them stopped the process once;
/// each must now get an answer, and the process must stay up.
@Suite("record-trip: hostile sample values never stop the process")
struct TripHostileSamplesTests {
    static let bodies = [
        #"{"fixes": [{"time": 2.225073858507203e-309, "lng": -1.1, "accuracy": -5.125223076802858e+125, "speed": 1.9, "lat": 1.0465371223447641e+151, "altitude": 3.013725742514761e+16}, {"time": 6.572316328334547e-228, "course": -9.33093906594881e-157, "lng": 4.088074571663541e+16, "lat": -3.4663031605920052e+16, "accuracy": 6.6085183274283724e+243, "speed": -2.9949601441602628e+16}, {"speed": -1.192092896e-07, "lng": -5.54209837110109e-227, "accuracy": 1.6916385443048562e+16, "time": 5.508307795243719e+129, "lat": 3.1810466529075056e+16}], "acceleration": []}"#,
        #"{"fixes": [{"time": 0.5, "lat": 48.41, "lng": 15.6}, {"time": 5.5e129, "lat": 48.41, "lng": 15.6001}, {"time": 1.7976931348623157e+308, "lat": 48.4101, "lng": 15.6002}], "acceleration": [{"time": 6.17e16, "x": 0.0, "y": 1.0, "z": 6.7e16}, {"time": 2.25e16, "x": 1.4e-45, "y": -2.19e16, "z": -3.0e15}]}"#,
        #"{"fixes": [{"lat": 376007758457555.0, "accuracy": -1.7976931348623157e+308, "course": 6.930889852335402e+16, "lng": 4.569597506074589e+16, "time": 5777015447993290.0}, {"lat": -6.103515625e-05, "lng": 2.4140185067812695e-217, "accuracy": 1.9071675206744104e+16, "speed": 4.641209188822343e+16, "course": -4.3271628926613855e+130, "time": 2.00001, "altitude": -7.0252049140978155e+103}, {"time": -2.74837706616396e-81, "lat": 1.7127645696563232e-103, "lng": 2.225073858507e-311}], "acceleration": []}"#,
    ]

    @Test("each analysis runs to an answer", arguments: 0..<3)
    func analysis(_ index: Int) throws {
        let body = Self.bodies[index].replacingOccurrences(of: "\"lat\"", with: "\"latitude\"")
            .replacingOccurrences(of: "\"lng\"", with: "\"longitude\"")
        let samples = try JSONDecoder().decode(TripSamples.self, from: Data(body.utf8))
        let cleaned = TrackCleaner.clean(samples.fixes)
        _ = TripStatisticsCalculator.compute(cleaned)
        _ = TripAnalyzer(matcher: TripTestNetwork.roads.matcher).analyse(samples)
        // The raw upload exported as GPX: a time no GPX date can say is left out, the rest written.
        let gpx = String(decoding: GPXWriter.write(GPXDocument(fixes: samples.fixes, acceleration: samples.acceleration)), as: UTF8.self)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == samples.fixes.count)
    }

    @Test("the preview answers each")
    func preview() async throws {
        try await TripApp.with { client, _ in
            for body in Self.bodies {
                let response = try await client.executeRequest(uri: "/v1/trips/preview", method: .post,
                                                               headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                #expect([200, 400, 413, 422].contains(Int(response.status.code)), "\(response.status) for \(body.prefix(60))")
            }
        }
    }
}
