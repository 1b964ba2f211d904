#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// base64url without padding (RFC 4648 §5), the alphabet of JWTs and JWKs.
public enum Base64URL {
    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; `nil` when not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(utf8: text.utf8)
    }

    /// Decodes base64url bytes (without padding); `nil` when not base64url. Works on the UTF-8 bytes directly: a token
    /// is verified on every request, and character-by-character string handling was most of its cost.
    public static func decode(utf8 bytes: some Collection<UInt8>) -> Data? {
        var base64 = [UInt8]()
        base64.reserveCapacity(bytes.count + 3)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4))
        return Data(base64Encoded: Data(base64))
    }
}
