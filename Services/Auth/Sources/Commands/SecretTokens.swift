import Contracts
import Crypto
import Foundation
import ServiceKit

/// Opaque bearer secrets handed to clients (refresh tokens, password-reset tokens): the owning record's id (16 bytes)
/// followed by 32 random bytes (256 bits), base64url without padding. Only the SHA-256 of the random part is stored,
/// so the log never holds a usable token, and a lookup needs no index of hashes.
struct SecretToken: Sendable, Hashable {
    var owner: UUID
    var secret: [UInt8]

    /// A new token for `owner`.
    static func generate(for owner: UUID) -> SecretToken {
        var generator = SystemRandomNumberGenerator()
        return SecretToken(owner: owner, secret: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Parses a presented token; `nil` when it is not one of ours.
    init?(presented: String) {
        guard presented.utf8.count == 64, let decoded = Base64URL.decode(presented), decoded.count == 48 else { return nil }
        let bytes = Array(decoded)
        let uuid = bytes.prefix(16)
        owner = UUID(uuid: (uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7],
                            uuid[8], uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]))
        secret = Array(bytes.suffix(32))
    }

    private init(owner: UUID, secret: [UInt8]) {
        self.owner = owner
        self.secret = secret
    }

    /// The string handed to the client.
    var encoded: String {
        let id = withUnsafeBytes(of: owner.uuid) { Array($0) }
        return Base64URL.encode(id + secret)
    }

    /// What is stored: SHA-256 of the secret, hex.
    var hash: String { Self.hash(secret) }

    static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

/// Stream ids of uniqueness claims: a SHA-256 of the normalised value, so no email or username appears in a stream id.
enum ReservationStream {
    static func name(_ kind: ReservationKind, _ normalized: String) -> String {
        "reservation-\(kind.rawValue)-\(SecretToken.hash(Array("waypoint-auth:\(kind.rawValue):\(normalized)".utf8)))"
    }
}
