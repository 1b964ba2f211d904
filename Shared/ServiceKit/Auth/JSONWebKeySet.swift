import JWTKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JWK Set (RFC 7517 §5): what `auth` publishes and every service fetches.
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    /// The keys; entries that are not RS256 signing keys are ignored by verifiers.
    public var keys: [JSONWebKey]

    /// Creates a key set.
    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }

    /// Parses a JWK Set document.
    public init(json: some DataProtocol) throws {
        self = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(json))
    }

    /// The RS256 verification keys by `kid`; other entries are skipped.
    public func rs256PublicKeys() -> [String: Insecure.RSA.PublicKey] {
        var result: [String: Insecure.RSA.PublicKey] = [:]
        for key in keys {
            if let id = key.keyID, let publicKey = key.rs256PublicKey() {
                result[id] = publicKey
            }
        }
        return result
    }

    /// The document as JSON, ready to serve as `application/jwk-set+json` or `application/json`.
    public func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
