#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one reader of JSON string escapes (RFC 8259 §7), for code that scans JSON bytes itself: the duplicate-member
/// check of request bodies (``JSONDuplicateKeys``) and analytics' payload reader.
public enum JSONStringEscapes {
    /// The text of a JSON string from its raw bytes between the quotes (escapes unresolved). `\uXXXX` pairs of UTF-16
    /// surrogates become one scalar; a lone surrogate becomes `loneSurrogate`, or makes the answer `nil` when that is
    /// `nil`. Malformed escapes are read leniently (`\x` is `x`), as are raw bytes that are not UTF-8 (U+FFFD).
    public static func unescape(_ raw: ArraySlice<UInt8>, loneSurrogate: Unicode.Scalar? = nil) -> String? {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        func flush() {
            if !utf8.isEmpty {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
        }
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < raw.endIndex else {
                utf8.append(byte)
                index += 1
                continue
            }
            flush()
            let escaped = raw[index + 1]
            index += 2
            if escaped == UInt8(ascii: "u"), let unit = hex4(raw, at: index) {
                index += 4
                guard let scalar = scalar(unit, in: raw, at: &index) ?? loneSurrogate else { return nil }
                scalars.append(scalar)
                continue
            }
            switch escaped {
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            default: scalars.append(Unicode.Scalar(escaped))
            }
        }
        flush()
        return String(scalars)
    }

    /// The scalar of UTF-16 code unit `unit`, with the low surrogate that follows at `index` (`\uDC00`–`\uDFFF`,
    /// consumed) when `unit` is a high one; `nil` for a lone surrogate.
    private static func scalar(_ unit: UInt32, in raw: ArraySlice<UInt8>, at index: inout Int) -> Unicode.Scalar? {
        guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) }
        guard index + 6 <= raw.endIndex, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
              let low = hex4(raw, at: index + 2), (0xDC00..<0xE000).contains(low)
        else { return nil }
        index += 6
        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
    }

    /// The value of the four hex digits at `index`, if there are four.
    private static func hex4(_ raw: ArraySlice<UInt8>, at index: Int) -> UInt32? {
        guard index + 4 <= raw.endIndex else { return nil }
        var value: UInt32 = 0
        for byte in raw[index..<(index + 4)] {
            guard let digit = hexValue(byte) else { return nil }
            value = value * 16 + digit
        }
        return value
    }

    /// The value of one hex digit.
    public static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
