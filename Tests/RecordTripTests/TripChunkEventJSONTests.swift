import Contracts
import EventSourcing
import Foundation
@testable import RecordTrip
import Testing

/// A chunk's event (`TripSamplesReceived`, 100–300 KB of sealed samples) is written and read without `Codable`
/// (`JSONWritable`, `JSONReadable`): the same bytes as `JSONEncoder`, the same value as `JSONDecoder`, and every other
/// shape left to `JSONDecoder`.
@Suite("record-trip: a chunk's event written and read without Codable")
struct TripChunkEventJSONTests {
    static let chunk = TripSamplesReceived(
        tripId: UUID(uuidString: "0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B")!, sequence: 7, digest: "9f86d081884c7d65", fixCount: 60,
        accelerationCount: 3_000, firstFixTime: 1_764_460_000.25, lastFixTime: 1_764_460_059.123456789,
        samples: SealedPersonalData(subject: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c", sealed: String(repeating: "QUJD/+9z", count: 20_000) + "=="),
        receivedAt: Date(timeIntervalSince1970: 1_764_460_060.123456), format: .binaryV1)

    @Test("written as JSONEncoder writes it and read back as JSONDecoder reads it, with and without its optional members")
    func roundTrip() throws {
        var bare = Self.chunk
        (bare.firstFixTime, bare.lastFixTime, bare.format) = (nil, nil, nil)
        for chunk in [Self.chunk, bare] {
            let written = try ContractJSON.encode(chunk)
            #expect(written == (try ContractJSON.encoder.encode(chunk)))
            let read = try #require(TripSamplesReceived.readJSON(written), "the fast reader takes what the writer wrote")
            #expect(read == chunk)
            #expect(read == (try ContractJSON.decoder.decode(TripSamplesReceived.self, from: written)))
            #expect(try EventJSON.decode(TripSamplesReceived.self, from: written) == chunk)
            #expect(SealedPersonalData.readJSON(try ContractJSON.encode(chunk.samples)) == chunk.samples)
        }
        let pretty = try ContractJSON.prettyEncoder.encode(Self.chunk)
        #expect(TripSamplesReceived.readJSON(pretty) == Self.chunk, "white space between tokens is read")
    }

    @Test("a null, an unknown or repeated member, an escape, a number with a fraction where an integer goes, a bad date or format: left to JSONDecoder",
          arguments: [
              (#""firstFixTime":1764460000.25"#, #""firstFixTime":null"#),
              (#""accelerationCount":3000"#, #""accelerationCount":3000,"extra":1"#),
              (#""digest":"9f86d081884c7d65""#, #""digest":"9f86d081884c7d65","digest":"other""#),
              (#""digest":"9f86d081884c7d65""#, #""digest":"9f86d081884c7d\u0036\u0035""#),
              (#""fixCount":60"#, #""fixCount":60.0"#),
              (#""receivedAt":"2025-11-29T23:47:40.123456Z""#, #""receivedAt":"2025-11-31T23:47:40.123456Z""#),
              (#""format":"binary-v1""#, #""format":"binary-v2""#),
              (#""subject":"0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c""#, #""subject":"0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c","other":"x""#),
          ])
    func otherShapes(original: String, replacement: String) throws {
        let written = String(decoding: try ContractJSON.encode(Self.chunk), as: UTF8.self)
        let variant = written.replacingOccurrences(of: original, with: replacement)
        #expect(variant != written, "the variant differs from what was written")
        let bytes = Data(variant.utf8)
        #expect(TripSamplesReceived.readJSON(bytes) == nil)
        // The decoding every reader uses answers as `JSONDecoder` does: the same value or the same refusal.
        let decoded = Result { try ContractJSON.decode(TripSamplesReceived.self, from: bytes) }
        let expected = Result { try ContractJSON.decoder.decode(TripSamplesReceived.self, from: bytes) }
        switch (decoded, expected) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure, .failure): break
        default: Issue.record("ContractJSON.decode and JSONDecoder disagree: \(decoded) vs \(expected)")
        }
    }
}
