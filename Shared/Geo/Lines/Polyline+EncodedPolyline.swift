// Google's Encoded Polyline Algorithm Format:
// https://developers.google.com/maps/documentation/utilities/polylinealgorithm
extension Polyline {
    /// The printable ASCII alphabet starts here; every 5-bit chunk is offset by it.
    private static let alphabetStart: UInt8 = 63
    /// Set on every chunk except a value's last.
    private static let continuationBit = 0x20
    /// A coordinate delta at precision 6 fits in 30 bits (6 chunks); a 7th chunk is tolerated, an 8th is garbage.
    private static let maximumShift = 35

    /// Decodes a Google encoded polyline.
    ///
    /// Never traps, whatever the input: every malformed, truncated or out-of-range string is
    /// reported as an `EncodedPolylineError`. The empty string is the empty polyline.
    /// - Parameter precision: Decimal places the encoder used; `.five` unless the producer says `polyline6`.
    public init(encoded: String, precision: PolylinePrecision = .five) throws(EncodedPolylineError) {
        let bytes = Array(encoded.utf8)
        var offset = 0
        var latitude = 0
        var longitude = 0
        var coordinates: [Coordinate] = []
        while offset < bytes.count {
            latitude += try Self.readValue(from: bytes, at: &offset)
            longitude += try Self.readValue(from: bytes, at: &offset)
            do {
                coordinates.append(try Coordinate(
                    latitude: Double(latitude) / precision.unitsPerDegree,
                    longitude: Double(longitude) / precision.unitsPerDegree
                ))
            } catch {
                // Checking every vertex also keeps the running sums far from Int overflow.
                throw .coordinateOutOfRange(index: coordinates.count, error)
            }
        }
        self.init(coordinates)
    }

    /// This polyline as a Google encoded polyline string.
    ///
    /// Each coordinate is rounded to `precision` decimal places before the differences are taken,
    /// so rounding errors do not accumulate along a long trace.
    public func encoded(precision: PolylinePrecision = .five) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(coordinates.count * 8)
        var previous = (latitude: 0, longitude: 0)
        for coordinate in coordinates {
            let latitude = Int((coordinate.latitude * precision.unitsPerDegree).rounded())
            let longitude = Int((coordinate.longitude * precision.unitsPerDegree).rounded())
            Self.appendValue(latitude - previous.latitude, to: &bytes)
            Self.appendValue(longitude - previous.longitude, to: &bytes)
            previous = (latitude, longitude)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendValue(_ value: Int, to bytes: inout [UInt8]) {
        // Zig-zag: the sign moves to bit 0 so small negative deltas stay short.
        var remaining = value < 0 ? ~(value << 1) : value << 1
        while remaining >= continuationBit {
            bytes.append(UInt8((continuationBit | (remaining & 0x1f))) + alphabetStart)
            remaining >>= 5
        }
        bytes.append(UInt8(remaining) + alphabetStart)
    }

    private static func readValue(from bytes: [UInt8], at offset: inout Int) throws(EncodedPolylineError) -> Int {
        var value = 0
        var shift = 0
        while true {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            let byte = bytes[offset]
            guard (alphabetStart...alphabetStart + 63).contains(byte) else {
                throw .invalidCharacter(offset: offset)
            }
            offset += 1
            let chunk = Int(byte - alphabetStart)
            value |= (chunk & 0x1f) << shift
            shift += 5
            if chunk & continuationBit == 0 { break }
            guard shift < maximumShift else { throw .valueTooLong(offset: offset) }
        }
        return value & 1 == 0 ? value >> 1 : ~(value >> 1)
    }
}
