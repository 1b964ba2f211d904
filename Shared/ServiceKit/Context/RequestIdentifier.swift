import Contracts
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Request ids: accepted from `X-Request-Id` when safe to log, generated otherwise.
public enum RequestIdentifier {
    /// The longest accepted incoming request id, in characters.
    static let maximumLength = 128

    /// `header` when it is 1–128 characters of `A–Z a–z 0–9 - _ . :`, otherwise a new lowercase UUID.
    ///
    /// Anything else is replaced rather than escaped, so a client cannot inject text into log lines.
    public static func accepting(_ header: String?) -> String {
        if let header, isAcceptable(header) { return header }
        return generate()
    }

    /// A new random request id (a lowercase UUID).
    static func generate() -> String {
        var generator = IdentifierGenerator()
        return UUID.v4(using: &generator).uuidString.lowercased()
    }

    static func isAcceptable(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= maximumLength else { return false }
        return value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }
}
