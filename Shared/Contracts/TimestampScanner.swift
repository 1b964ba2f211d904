/// A cursor over the UTF-8 bytes of an RFC 3339 timestamp, used by ``RFC3339Timestamp``.
struct TimestampScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been consumed.
    var isAtEnd: Bool { index == bytes.count }

    /// Consumes `character` if it comes next.
    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Consumes exactly `count` decimal digits and returns their value.
    mutating func digits(_ count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<(index + count)] {
            guard let digit = Self.digitValue(byte) else { return nil }
            value = value * 10 + digit
        }
        index += count
        return value
    }

    /// Consumes one to `maxCount` decimal digits and returns their value and how many there were.
    mutating func fractionDigits(maxCount: Int) -> (value: Int64, count: Int)? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, let digit = Self.digitValue(bytes[index]) {
            guard count < maxCount else { return nil }
            value = value * 10 + digit
            count += 1
            index += 1
        }
        return count > 0 ? (value, count) : nil
    }

    /// Consumes `Z`, `z` or `±HH:MM` and returns the offset east of UTC in seconds.
    mutating func utcOffsetSeconds() -> Int64? {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = digits(2), skip(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
            return nil
        }
        return sign * (hours * 3600 + minutes * 60)
    }

    private static func digitValue(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
