import Foundation
import RecordTripAnalysis

/// A recorded ride's chunk bodies as a phone uploads them (`POST /v1/trips/{id}/samples`, `{sequence, fixes,
/// acceleration}`; `docs/record-trip.md`), encoded once before anything is timed. Used by `waypoint-bench trips`
/// (1-hour rides, a chunk a minute) and by the gateway benchmark's bike mix (chunks of the riders' trips).
struct RecordedRide: Sendable {
    /// One GPS fix: seconds since 1970, degrees, metres.
    struct Fix: Sendable, Hashable {
        var time: Double
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
    }

    /// Chunk bodies, chunk `i` with sequence number `i`.
    var chunkBodies: [Data]

    /// `fixes` (one a second) cut into chunks of `fixesPerChunk`, each with `accelerationPerChunk` accelerometer samples
    /// spread evenly over the chunk's seconds (gravity on z plus Gaussian noise on every axis, drawn from `seed`).
    init(_ fixes: [Fix], fixesPerChunk: Int, accelerationPerChunk: Int, seed: UInt64) throws {
        precondition(fixesPerChunk > 0, "a chunk holds at least one fix")
        var random = SeededRandom(seed: seed)
        chunkBodies = try stride(from: 0, to: fixes.count, by: fixesPerChunk).enumerated().map { sequence, start in
            try Self.chunkBody(sequence: sequence, fixes: fixes[start..<min(start + fixesPerChunk, fixes.count)],
                               seconds: Double(fixesPerChunk), acceleration: accelerationPerChunk, random: &random)
        }
    }

    /// The body of chunk `sequence`: `fixes` and `acceleration` samples from the first fix's time on, evenly over
    /// `seconds`.
    static func chunkBody(sequence: Int, fixes: ArraySlice<Fix>, seconds: Double, acceleration: Int, random: inout SeededRandom) throws -> Data {
        let first = fixes.first?.time ?? 0
        let step = seconds / Double(max(1, acceleration))
        let samples = (0..<acceleration).map { k in
            AccelerationSample(time: first + Double(k) * step, x: random.gaussian(sigma: 0.3), y: random.gaussian(sigma: 0.3),
                               z: 9.81 + random.gaussian(sigma: 0.5))
        }
        let body = ChunkBody(sequence: sequence, fixes: fixes.map { ChunkBody.Fix(time: $0.time, lat: $0.latitude, lng: $0.longitude, accuracy: $0.accuracy) },
                             acceleration: samples)
        return try JSONEncoder().encode(body)
    }

    private struct ChunkBody: Encodable {
        struct Fix: Encodable {
            var time: Double, lat: Double, lng: Double, accuracy: Double?
        }

        var sequence: Int
        var fixes: [Fix]
        var acceleration: [AccelerationSample]
    }
}
