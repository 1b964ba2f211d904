import Foundation
import RecordTripAnalysis

/// How a chunk's sealed samples are written (``TripSamplesReceived/format``). Events in the log never change, so every
/// format once recorded stays readable.
public enum TripSamplesFormat: String, Codable, Sendable, Hashable {
    /// ``TripSamples`` as sorted-key JSON: every chunk recorded before the binary format (the field is absent there).
    case json
    /// ``TripSamplesBinary``, version 1.
    case binaryV1 = "binary-v1"
}

/// The compact binary form of a chunk's samples, little-endian and fixed-width:
///
/// - header: the bytes `WPS1`, then the fix count and the accelerometer sample count as `UInt32`;
/// - each fix: a presence byte (bit 0 altitude, 1 accuracy, 2 speed, 3 course) and seven `Float64` — time, latitude,
///   longitude, altitude, accuracy, speed, course (an absent value is written as 0);
/// - each accelerometer sample: four `Float64` — time, x, y, z.
///
/// The same samples always give the same bytes, so the digest over them names the content. Decoding checks every length
/// and never traps: a payload that does not fit the layout throws.
public enum TripSamplesBinary {
    static let magic: [UInt8] = Array("WPS1".utf8)
    static let fixBytes = 1 + 7 * 8
    static let accelerationBytes = 4 * 8

    /// Errors of ``decode(_:)``.
    public struct Malformed: Error, Hashable {
        /// What did not fit.
        public var reason: String
    }

    /// The samples as bytes.
    public static func encode(_ samples: TripSamples) -> Data {
        var bytes: [UInt8] = magic
        bytes.reserveCapacity(12 + samples.fixes.count * fixBytes + samples.acceleration.count * accelerationBytes)
        append(UInt32(truncatingIfNeeded: samples.fixes.count), to: &bytes)
        append(UInt32(truncatingIfNeeded: samples.acceleration.count), to: &bytes)
        for fix in samples.fixes {
            let optionals = [fix.altitude, fix.accuracy, fix.speed, fix.course]
            var present: UInt8 = 0
            for (bit, value) in optionals.enumerated() where value != nil { present |= 1 << UInt8(bit) }
            bytes.append(present)
            for value in [fix.time, fix.latitude, fix.longitude] + optionals.map({ $0 ?? 0 }) { append(value.bitPattern, to: &bytes) }
        }
        for sample in samples.acceleration {
            append(sample.time.bitPattern, to: &bytes)
            append(sample.x.bitPattern, to: &bytes)
            append(sample.y.bitPattern, to: &bytes)
            append(sample.z.bitPattern, to: &bytes)
        }
        return Data(bytes)
    }

    /// The samples back from ``encode(_:)``'s bytes; ``Malformed`` when they do not fit the layout.
    public static func decode(_ data: Data) throws -> TripSamples {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard raw.count >= 12, Array(raw[0..<4]) == magic else { throw Malformed(reason: "no WPS1 header") }
            let fixCount = Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
            let accelerationCount = Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian)
            guard raw.count == 12 + fixCount * fixBytes + accelerationCount * accelerationBytes else {
                throw Malformed(reason: "\(raw.count) bytes do not hold \(fixCount) fixes and \(accelerationCount) samples")
            }
            func double(_ offset: Int) -> Double {
                Double(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            }
            var fixes: [GPSFix] = []
            fixes.reserveCapacity(fixCount)
            for index in 0..<fixCount {
                let at = 12 + index * fixBytes
                let present = raw[at]
                func optional(_ bit: Int) -> Double? { present & (1 << UInt8(bit)) == 0 ? nil : double(at + 1 + (3 + bit) * 8) }
                fixes.append(GPSFix(time: double(at + 1), latitude: double(at + 9), longitude: double(at + 17), altitude: optional(0),
                                    accuracy: optional(1), speed: optional(2), course: optional(3)))
            }
            let base = 12 + fixCount * fixBytes
            let acceleration = (0..<accelerationCount).map { index in
                let at = base + index * accelerationBytes
                return AccelerationSample(time: double(at), x: double(at + 8), y: double(at + 16), z: double(at + 24))
            }
            return TripSamples(fixes: fixes, acceleration: acceleration)
        }
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
