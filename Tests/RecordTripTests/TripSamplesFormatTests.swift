import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import RecordTrip
import RecordTripAnalysis
import ServiceTesting
import Testing

/// Chunks are sealed in the compact binary format; the JSON chunks recorded before stay readable. The oracle of the
/// binary coder is the JSON coder (Foundation's): both must give back the same samples.
@Suite("record-trip: sealed samples in binary (binary-v1), old JSON chunks still read")
struct TripSamplesFormatTests {
    typealias App = TripApp

    /// Seeded samples (a SplitMix64 stream): every optional field present or absent at random, values over wide ranges
    /// (negative, tiny, large), with 50 Hz accelerometer samples.
    static func samples(seed: UInt64, fixes: Int) -> TripSamples {
        var state = seed
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double(z ^ (z >> 31)) / Double(UInt64.max)
        }
        func maybe(_ value: Double) -> Double? { next() < 0.5 ? nil : value }
        let list = (0..<fixes).map { i in
            GPSFix(time: 1_790_000_000 + Double(i) + next(), latitude: next() * 180 - 90, longitude: next() * 360 - 180,
                   altitude: maybe(next() * 9000 - 500), accuracy: maybe(next() * 1e-300), speed: maybe(next() * 1e6), course: maybe(next() * 360))
        }
        let acceleration = (0..<(fixes * 50)).map { i in
            AccelerationSample(time: 1_790_000_000 + Double(i) / 50, x: next() * 40 - 20, y: next() * 40 - 20, z: next() * 40 - 20)
        }
        return TripSamples(fixes: list, acceleration: acceleration)
    }

    @Test("binary and JSON decode to the same samples; the same samples always give the same bytes", arguments: [1, 2, 19, 2026] as [UInt64])
    func bothFormatsAgree(seed: UInt64) throws {
        let samples = Self.samples(seed: seed, fixes: 200)
        let binary = try samples.encoded(as: .binaryV1)
        let json = try samples.encoded(as: .json)
        let fromBinary = try TripSamples.decode(binary, format: .binaryV1)
        let fromJSON = try TripSamples.decode(json, format: .json)
        #expect(fromBinary == samples)
        #expect(fromBinary == fromJSON)
        #expect(TripSamplesBinary.encode(fromJSON) == binary, "deterministic: the digest names the content")
        #expect(binary.count == 12 + 200 * 57 + 10_000 * 32)
        #expect(binary.count * 2 < json.count, "\(binary.count) binary bytes against \(json.count) JSON bytes")
    }

    @Test("empty samples, and every cut or damaged header, decode or throw — never crash")
    func damaged() throws {
        #expect(try TripSamples.decode(TripSamplesBinary.encode(TripSamples(fixes: [], acceleration: [])), format: .binaryV1).fixes.isEmpty)
        let bytes = TripSamplesBinary.encode(Self.samples(seed: 7, fixes: 3))
        for length in 0..<bytes.count {
            #expect(throws: TripSamplesBinary.Malformed.self) { try TripSamplesBinary.decode(bytes.prefix(length)) }
        }
        for index in 0..<12 {
            for value: UInt8 in [0, 1, 0x7F, 0xFF] where value != bytes[index] {
                var changed = bytes
                changed[index] = value
                #expect(throws: TripSamplesBinary.Malformed.self) { try TripSamplesBinary.decode(changed) }
            }
        }
        #expect(throws: TripSamplesBinary.Malformed.self) { try TripSamplesBinary.decode(bytes + [0]) }
    }

    @Test("an old JSON chunk and a binary one: the old one is a repeat when resent, the analysis reads both, exports work",
          arguments: TestBackend.enabled)
    func oldAndNewChunks(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4()
            let token = try await App.token(rider)
            let id = try await App.create(client, token: token)
            let trip = try #require(UUID(uuidString: id))
            let old = TripSamples(fixes: Array(App.ride.fixes[0..<60]), acceleration: [])
            try await Self.appendJSONChunk(old, sequence: 0, trip: trip, rider: rider, h)
            let first = try await h.store.readStream(TripAggregate.streamID(trip)).last
            #expect(first.map { String(decoding: $0.payload, as: UTF8.self).contains("\"format\"") } == false, "an old-format event")

            let resent = #"{"sequence":0,"fixes":\#(try Self.fixesJSON(old.fixes)),"acceleration":[]}"#
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: resent, token: token).status == 200,
                    "the same samples again: a repeat, not a conflict")
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(1, first: 60, fixes: 60), token: token).status == 201)
            let formats = try await h.server.commands.readTrip(TripAggregate.streamID(trip)).chunks.map(\.samplesFormat)
            #expect(formats == [.json, .binaryV1])

            let joined = try #require(try await h.server.commands.samples(of: trip))
            #expect(joined.fixes.count == 120 && joined.acceleration.count == 60 * 50)
            #expect(Array(joined.fixes[0..<60]) == old.fixes)
            let finished = try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token)
            #expect(finished.status == 200 && finished.json["fixCount"] as? Int == 120)
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            let gpx = try await client.executeRequest(uri: "/v1/trips/\(id)/export.gpx", method: .get, headers: headers, body: nil)
            #expect(gpx.status == .ok && String(buffer: gpx.body).components(separatedBy: "<trkpt").count == 121)
        }
    }

    /// Appends a chunk as the service wrote it before binary-v1: canonical JSON sealed, digest over the JSON, no format.
    static func appendJSONChunk(_ samples: TripSamples, sequence: Int, trip: UUID, rider: UUID, _ h: TripHarness) async throws {
        let json = try samples.canonicalJSON()
        let times = samples.fixes.map(\.time)
        let chunk = TripSamplesReceived(
            tripId: trip, sequence: sequence, digest: TripCommands.digest(json), fixCount: samples.fixes.count,
            accelerationCount: samples.acceleration.count, firstFixTime: times.min(), lastFixTime: times.max(),
            samples: try await h.server.commands.seal.seal(json: json, for: rider), receivedAt: Date())
        _ = try await h.store.append([try chunk.newEvent()], to: TripAggregate.streamID(trip), expectedVersion: .any)
    }

    /// Fixes as the upload API writes them (`lat`, `lng`).
    static func fixesJSON(_ fixes: [GPSFix]) throws -> String {
        "[" + fixes.map { f in
            #"{"time":\#(f.time),"lat":\#(f.latitude),"lng":\#(f.longitude),"altitude":\#(f.altitude!),"accuracy":\#(f.accuracy!),"speed":\#(f.speed!),"course":\#(f.course!)}"#
        }.joined(separator: ",") + "]"
    }
}
