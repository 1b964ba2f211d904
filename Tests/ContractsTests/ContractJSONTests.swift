import Contracts
import Foundation
import Testing

@Suite("ContractJSON")
struct ContractJSONTests {
    private struct Stamped: Codable, Equatable {
        let recordedAt: Date
    }

    private static let tenOClock = Date(timeIntervalSince1970: 1_795_341_600)

    @Test("a whole-second date is written without fractional seconds and read back exactly")
    func wholeSeconds() throws {
        let json = String(decoding: try ContractJSON.encode(Stamped(recordedAt: Self.tenOClock)), as: UTF8.self)
        #expect(json == #"{"recordedAt":"2026-11-22T10:00:00Z"}"#)
        #expect(try ContractJSON.decode(Stamped.self, from: Data(json.utf8)).recordedAt == Self.tenOClock)
    }

    @Test(
        "fractional seconds are written as milliseconds or microseconds and round-trip",
        arguments: [
            "2026-11-22T10:00:00.123Z",
            "2026-11-22T10:00:00.500Z",
            "2026-11-22T10:00:00.000001Z",
            "2026-11-22T10:00:00.123456Z",
            "2026-11-22T23:59:59.999999Z",
            "1969-12-31T23:59:59.250Z",
            "2000-02-29T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ]
    )
    func roundTrip(text: String) throws {
        let json = #"{"recordedAt":"\#(text)"}"#
        let decoded = try ContractJSON.decode(Stamped.self, from: Data(json.utf8))
        #expect(String(decoding: try ContractJSON.encode(decoded), as: UTF8.self) == json)
    }

    @Test(
        "other RFC 3339 spellings of the same instant are read and written back in UTC",
        arguments: [
            ("2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.123Z"),
            ("2026-11-22T10:00:00.1230Z", "2026-11-22T10:00:00.123Z"),
            ("2026-11-22T11:00:00.123+01:00", "2026-11-22T10:00:00.123Z"),
            ("2026-11-22T04:30:00-05:30", "2026-11-22T10:00:00Z"),
            ("2026-11-22t10:00:00z", "2026-11-22T10:00:00Z"),
            ("2026-11-22T10:00:00.123456789Z", "2026-11-22T10:00:00.123457Z"),
        ]
    )
    func tolerantReading(input: String, canonical: String) throws {
        let date = try #require(RFC3339Timestamp.date(from: input))
        #expect(RFC3339Timestamp.string(from: date) == canonical)
    }

    @Test(
        "text that is not an RFC 3339 date-time is rejected",
        arguments: [
            "", "2026-11-22", "2026-11-22T10:00:00", "2026-11-22 10:00:00Z", "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T10:60:00Z",
            "2026-11-22T10:00:60Z", "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00.1234567891Z",
            "2026-11-22T10:00:00+0100", "26-11-22T10:00:00Z", "2026-11-22T10:00:00Zjunk", "1795341600",
        ]
    )
    func rejectsInvalidText(text: String) {
        #expect(RFC3339Timestamp.date(from: text) == nil)
        #expect(throws: DecodingError.self) {
            try ContractJSON.decode(Stamped.self, from: Data(#"{"recordedAt":"\#(text)"}"#.utf8))
        }
    }

    @Test("a date outside the years 0001–9999 cannot be encoded")
    func unrepresentableDate() {
        let tooLate = Date(timeIntervalSince1970: 253_402_300_800)
        #expect(RFC3339Timestamp.string(from: tooLate) == nil)
        #expect(throws: EncodingError.self) { try ContractJSON.encode(Stamped(recordedAt: tooLate)) }
    }

    @Test("keys stay camelCase and are sorted; slashes are not escaped")
    func keyOrder() throws {
        struct Payload: Encodable {
            let zoneName = "Wachau"
            let amountMinor = 5
            let audioURL = URL(string: "https://media.example/stop/1.mp3")!
        }
        let json = String(decoding: try ContractJSON.encode(Payload()), as: UTF8.self)
        #expect(json == #"{"amountMinor":5,"audioURL":"https://media.example/stop/1.mp3","zoneName":"Wachau"}"#)
    }

    @Test("the pretty encoder differs from the wire encoder only in whitespace")
    func prettyEncoder() throws {
        let event = ExampleEventRecorded.pinned
        let pretty = try ContractJSON.prettyEncoder.encode(event)
        #expect(try ContractJSON.decode(ExampleEventRecorded.self, from: pretty) == event)
        let compact = String(decoding: try ContractJSON.encode(event), as: UTF8.self)
        let squeezed = String(decoding: pretty, as: UTF8.self)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
            .replacingOccurrences(of: "\" : ", with: "\":")
        #expect(squeezed == compact)
    }
}
