import Foundation
import ServiceKit

/// Random identifiers for keys and tokens.
enum KeyIdentifiers {
    /// 16 bytes from the system CSPRNG, base64url without padding (22 characters).
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }
}
