import Contracts
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Minimal JSON writing for log lines: strings, metadata as objects and arrays, and timestamps, appended as UTF-8 to
/// one growing buffer (a log line is built without intermediate strings: the gateway writes one per request).
enum JSONText {
    /// Appends `value` as a JSON string literal, escaping quotes, backslashes, control characters and U+2028/U+2029.
    static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var clean = 0  // start of the bytes not yet copied
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                let escape: StaticString?
                var width = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "\n"): escape = "\\n"
                case UInt8(ascii: "\r"): escape = "\\r"
                case UInt8(ascii: "\t"): escape = "\\t"
                case 0..<0x20: escape = ""
                case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                    // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: valid JSON, but line breaks to some readers.
                    escape = utf8[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    width = 3
                default: escape = nil
                }
                guard let escape else {
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                if escape.utf8CodeUnitCount == 0 {
                    appendUnicodeEscape(byte, to: &out)
                } else {
                    escape.withUTF8Buffer { out.append(contentsOf: $0) }
                }
                index += width
                clean = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `metadata` as a JSON object, keys sorted.
    static func appendObject(_ metadata: Logger.Metadata, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (position, key) in metadata.keys.sorted().enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendValue(metadata[key]!, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends one metadata value: strings stay strings, arrays and dictionaries nest.
    static func appendValue(_ value: Logger.Metadata.Value, to out: inout [UInt8]) {
        switch value {
        case .string(let string): appendQuoted(string, to: &out)
        case .stringConvertible(let convertible): appendQuoted(convertible.description, to: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (position, element) in array.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                appendValue(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary): appendObject(dictionary, to: &out)
        }
    }

    /// Appends the current time as a quoted RFC 3339 UTC timestamp with milliseconds (`"2025-05-01T09:30:00.123Z"`),
    /// the format of ``ServiceJSON``'s fractional timestamps, without Foundation's formatter.
    static func appendTimestamp(to out: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        JSONOutput.appendMillisecondTimestamp(unixSeconds: Int64(now.tv_sec), milliseconds: Int64(now.tv_nsec) / 1_000_000, to: &out)
    }

    private static func appendUnicodeEscape(_ byte: UInt8, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
    }
}
