/// Why an access token was refused; logged, never sent to the client (which sees one 401).
public enum AccessTokenError: Error, Sendable, Equatable {
    /// Not three base64url segments, or an undecodable header.
    case malformed
    /// The header's `alg` is not `RS256` (e.g. `none`, `HS256`).
    case unsupportedAlgorithm(String)
    /// The header has no `kid`.
    case missingKeyID
    /// The header names `crit` extensions we do not understand.
    case unsupportedCriticalHeader
    /// No key with this `kid` in the key set, even after a refetch.
    case unknownKeyID(String)
    /// The signature does not verify, or the payload is not valid claims.
    case invalidSignatureOrClaims
    /// `exp` is in the past (beyond the leeway).
    case expired
    /// `nbf` is in the future (beyond the leeway).
    case notYetValid
    /// `iat` is in the future (beyond the leeway).
    case issuedInFuture
    /// `iss` is not the configured issuer.
    case wrongIssuer(String)
    /// `aud` does not contain the configured audience.
    case wrongAudience([String])
    /// The token's session (`sid`) was revoked (logout, refresh-token reuse, password change, …): refused with the
    /// same 401 `invalid-token`, detail "The session of this access token has ended."
    case sessionRevoked
    /// The key set could not be fetched, so nothing can be verified right now (answered with 503).
    case keysUnavailable
}
