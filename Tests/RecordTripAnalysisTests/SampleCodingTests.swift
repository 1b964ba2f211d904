import Foundation
import RecordTripAnalysis
import Testing

@Suite struct SampleCodingTests {
    @Test func aFixRoundTripsThroughJSONWithItsOptionalFieldsAbsent() throws {
        let fix = GPSFix(time: 1_790_000_000.25, latitude: 48.41, longitude: 15.6, accuracy: 4)
        let data = try JSONEncoder().encode(fix)
        #expect(try JSONDecoder().decode(GPSFix.self, from: data) == fix)
        #expect(!String(decoding: data, as: UTF8.self).contains("altitude"))
    }
}
