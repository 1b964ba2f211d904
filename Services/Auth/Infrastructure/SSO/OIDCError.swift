/// Why an ID token was refused. Each check of ``OIDCVerifier`` has its own case, for logs and tests;
/// clients should see one generic 401 (except ``unknownProvider``, 404, and ``keysUnavailable``, 503).
public enum OIDCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No provider with this name is configured.
    case unknownProvider
    /// Not three base64url segments, a header or payload that is not a JSON object, a claim of the
    /// wrong type, a `crit` header, or no `exp` or `iat`.
    case malformed
    /// The header's `alg` is not `RS256` (e.g. `none`, `HS256`).
    case unsupportedAlgorithm
    /// The header has no `kid`.
    case missingKeyID
    /// The provider's key set has no key with the header's `kid`, even after a refetch.
    case unknownKeyID
    /// The RS256 signature does not verify with the provider's key.
    case badSignature
    /// `iss` is not one of the provider's issuers.
    case wrongIssuer
    /// `aud` contains none of our client ids.
    case wrongAudience
    /// `exp` is in the past (beyond the leeway).
    case expired
    /// `nbf` is in the future (beyond the leeway).
    case notYetValid
    /// `iat` is in the future (beyond the leeway).
    case issuedInFuture
    /// `sub` is missing or empty.
    case missingSubject
    /// The token's `nonce` differs from the one the client committed to.
    case nonceMismatch
    /// The provider's key set could not be fetched, so nothing can be verified right now (503).
    case keysUnavailable

    public var description: String {
        switch self {
        case .unknownProvider: "unknown SSO provider"
        case .malformed: "malformed ID token"
        case .unsupportedAlgorithm: "ID token algorithm is not RS256"
        case .missingKeyID: "ID token header has no kid"
        case .unknownKeyID: "ID token kid is not in the provider's key set"
        case .badSignature: "ID token signature does not verify"
        case .wrongIssuer: "ID token issuer is not the provider's"
        case .wrongAudience: "ID token audience is not one of our client ids"
        case .expired: "ID token expired"
        case .notYetValid: "ID token not valid yet"
        case .issuedInFuture: "ID token issued in the future"
        case .missingSubject: "ID token has no subject"
        case .nonceMismatch: "ID token nonce does not match"
        case .keysUnavailable: "provider's key set is unavailable"
        }
    }
}
