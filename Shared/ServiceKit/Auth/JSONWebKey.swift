import JWTKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a JWK Set (RFC 7517), as much of it as RS256 verification needs.
public struct JSONWebKey: Codable, Sendable, Equatable {
    /// Key type (`kty`); only `RSA` keys are used.
    public var keyType: String
    /// Key id (`kid`), matched against the token header's `kid`.
    public var keyID: String?
    /// Intended algorithm (`alg`); when present it must be `RS256`.
    public var algorithm: String?
    /// Intended use (`use`); when present it must be `sig`.
    public var use: String?
    /// RSA modulus (`n`), base64url without padding.
    public var modulus: String?
    /// RSA public exponent (`e`), base64url without padding.
    public var exponent: String?

    private enum CodingKeys: String, CodingKey {
        case keyType = "kty", keyID = "kid", algorithm = "alg", use, modulus = "n", exponent = "e"
    }

    /// The JWK of an RS256 signing key with id `keyID`.
    public init(rs256 key: Insecure.RSA.PublicKey, keyID: String) throws {
        let primitives = try key.getKeyPrimitives()
        self.keyType = "RSA"
        self.keyID = keyID
        self.algorithm = "RS256"
        self.use = "sig"
        self.modulus = Base64URL.encode(primitives.modulus)
        self.exponent = Base64URL.encode(primitives.publicExponent)
    }

    /// The RS256 verification key, or `nil` when this entry is not one (other type, use or algorithm,
    /// missing id, or an RSA key under 2048 bits).
    public func rs256PublicKey() -> Insecure.RSA.PublicKey? {
        guard keyType == "RSA", keyID?.isEmpty == false, use == nil || use == "sig",
            algorithm == nil || algorithm == "RS256", let modulus, let exponent
        else { return nil }
        return try? Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent)
    }
}
