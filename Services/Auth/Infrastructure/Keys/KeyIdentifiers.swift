import Foundation

/// Random identifiers and base64url for keys and tokens (kept separate from ServiceKit's internal helper).
enum KeyIdentifiers {
    /// 16 bytes from the system CSPRNG, base64url without padding (22 characters).
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    /// base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// `duration` in seconds, as a `TimeInterval`.
    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
