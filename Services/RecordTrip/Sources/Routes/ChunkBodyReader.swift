import Contracts
import Foundation
import RecordTripAnalysis
import ServiceKit

/// A fast reader of the common chunk body — `{"sequence": n, "fixes": [{…}], "acceleration": [{…}]}` with numbers only —
/// that skips `Codable` (Foundation's `JSONDecoder` was the largest cost of ingest). It reads only that strict shape:
/// anything else (another member, `null`, a string, an escape, a repeated member, a number the grammar or a `Double`
/// does not take) answers `nil`, and the caller decodes with `JSONDecoder` as before — so errors, and every body it
/// does not read, are decoded exactly as they were. Numbers are converted as `strtod` converts them (Contracts'
/// `StrictJSONCursor`, shared with navigation's position updates).
enum ChunkBodyReader {
    /// The chunk, or `nil` when the body is not of the strict shape.
    static func read(_ data: Data) -> ChunkRequest? {
        StrictJSONCursor.read(data) { $0.chunk() }
    }
}

extension StrictJSONCursor {
    mutating func chunk() -> ChunkRequest? {
        var request = ChunkRequest(sequence: 0, fixes: nil, acceleration: nil)
        var seen = 0
        let complete = object { cursor, key in
            switch key {
            case "sequence":
                guard seen & 1 == 0, let value = cursor.integer() else { return false }
                (request.sequence, seen) = (value, seen | 1)
            case "fixes":
                guard seen & 2 == 0, let value = cursor.array({ $0.fix() }) else { return false }
                (request.fixes, seen) = (value, seen | 2)
            case "acceleration":
                guard seen & 4 == 0, let value = cursor.array({ $0.acceleration() }) else { return false }
                (request.acceleration, seen) = (value, seen | 4)
            default: return false
            }
            return true
        }
        return complete && seen & 1 == 1 ? request : nil
    }

    static let fixNames = ["time", "lat", "lng", "altitude", "accuracy", "speed", "course"].map { Array($0.utf8) }
    static let accelerationNames = ["time", "x", "y", "z"].map { Array($0.utf8) }

    mutating func fix() -> FixBody? {
        var values = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        guard let seen = numbers(Self.fixNames, { index, value in
            switch index {
            case 0: values.0 = value
            case 1: values.1 = value
            case 2: values.2 = value
            case 3: values.3 = value
            case 4: values.4 = value
            case 5: values.5 = value
            default: values.6 = value
            }
        }), seen & 7 == 7 else { return nil }
        func optional(_ index: Int, _ value: Double) -> Double? { seen & (1 << index) == 0 ? nil : value }
        return FixBody(GPSFix(time: values.0, latitude: values.1, longitude: values.2, altitude: optional(3, values.3),
                              accuracy: optional(4, values.4), speed: optional(5, values.5), course: optional(6, values.6)))
    }

    mutating func acceleration() -> AccelerationSample? {
        var values = (0.0, 0.0, 0.0, 0.0)
        guard numbers(Self.accelerationNames, { index, value in
            switch index {
            case 0: values.0 = value
            case 1: values.1 = value
            case 2: values.2 = value
            default: values.3 = value
            }
        }) == 15 else { return nil }
        return AccelerationSample(time: values.0, x: values.1, y: values.2, z: values.3)
    }
}

extension ChunkRequest: FastJSONReadable {
    /// ``ChunkBodyReader``.
    static func readFast(_ data: Data) -> ChunkRequest? { ChunkBodyReader.read(data) }
}
