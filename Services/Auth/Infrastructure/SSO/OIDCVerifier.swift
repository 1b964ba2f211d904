import Contracts
import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import ServiceKit

/// Verifies OpenID Connect ID tokens from the configured SSO providers (Sign in with Google, Sign in
/// with Apple) and returns the identity they prove.
///
/// Each provider's keys come from its own ServiceKit ``JWKSProvider`` (cached; refetched, rate-limited,
/// when a token names an unknown `kid`, which is how Google and Apple rotate keys).
///
/// Checks, in order, each failing with its own ``OIDCError``: the provider is configured; three
/// base64url segments with JSON header and claims; `alg` exactly `RS256` (so `none` and `HS256` signed
/// with the public key fail); a `kid`; that key in the provider's key set; the RS256 signature; `iss`
/// one of the provider's issuers; `aud` containing one of our client ids; `exp`, then `iat`, then `nbf`
/// within ``leeway`` of now; a non-empty `sub`; and the `nonce`, when the caller expects one.
public final class OIDCVerifier: Sendable {
    /// The configured providers by name.
    public let providers: [String: OIDCProvider]
    /// Clock skew tolerated on `exp`, `iat` and `nbf` (default 60 s).
    public let leeway: Duration

    private let keySources: [String: JWKSProvider]
    private let now: @Sendable () -> Date

    /// Creates a verifier for `providers` (by ``OIDCProvider/name``; the first of duplicate names wins).
    /// Nothing is fetched until the first token of a provider arrives; one key-set fetch takes at most
    /// `keyFetchTimeout`.
    public init(
        providers: [OIDCProvider],
        httpClient: HTTPClient = .shared,
        leeway: Duration = .seconds(60),
        keyFetchTimeout: Duration = .seconds(5),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        let byName = Dictionary(providers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.providers = byName
        self.keySources = byName.mapValues {
            JWKSProvider(url: $0.jwksURL, httpClient: httpClient, fetchTimeout: keyFetchTimeout, logger: Logger(label: "waypoint.sso.jwks"))
        }
        self.leeway = leeway
        self.now = now
    }

    /// The identity proven by `idToken`, an ID token issued by the provider named `provider`.
    ///
    /// - Parameter nonce: when given, the token's `nonce` claim must equal it (the value the client sent
    ///   to the provider, which binds the token to this sign-in and prevents replay).
    /// - Throws: ``OIDCError`` describing the first failed check.
    public func verify(idToken: String, provider: String, nonce: String? = nil) async throws -> OIDCIdentity {
        guard let configuration = providers[provider], let keySource = keySources[provider] else {
            throw OIDCError.unknownProvider
        }
        let parts = try IDTokenParts(token: idToken)
        guard parts.header.alg == "RS256" else { throw OIDCError.unsupportedAlgorithm }
        guard parts.header.crit == nil else { throw OIDCError.malformed }
        guard let kid = parts.header.kid, !kid.isEmpty else { throw OIDCError.missingKeyID }

        let key: Insecure.RSA.PublicKey?
        do {
            key = try await keySource.publicKey(for: kid)
        } catch {
            throw OIDCError.keysUnavailable
        }
        guard let key else { throw OIDCError.unknownKeyID }

        // A collection holding only this key, so jwt-kit cannot fall back to another one. The header and
        // claims were parsed above, so any failure here is the signature's.
        let collection = JWTKeyCollection()
        await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        do {
            _ = try await collection.verify(idToken, as: SignatureOnly.self)
        } catch {
            throw OIDCError.badSignature
        }

        let claims = parts.claims
        guard let issuer = claims.issuer, configuration.issuers.contains(issuer) else { throw OIDCError.wrongIssuer }
        guard claims.audience.contains(where: configuration.audiences.contains) else { throw OIDCError.wrongAudience }
        guard let expiresAt = claims.expiresAt, let issuedAt = claims.issuedAt else { throw OIDCError.malformed }
        let now = now().timeIntervalSince1970
        let leewaySeconds = leeway.timeInterval
        guard now - expiresAt < leewaySeconds else { throw OIDCError.expired }
        guard issuedAt - now <= leewaySeconds else { throw OIDCError.issuedInFuture }
        if let notBefore = claims.notBefore, notBefore - now > leewaySeconds { throw OIDCError.notYetValid }
        guard let subject = claims.subject, !subject.isEmpty else { throw OIDCError.missingSubject }
        if let nonce, claims.nonce != nonce { throw OIDCError.nonceMismatch }

        return OIDCIdentity(
            provider: configuration.name,
            subject: subject,
            email: claims.email,
            emailVerified: claims.emailVerified ?? false,
            name: claims.name
        )
    }
}

/// Accepts any JSON object: jwt-kit checks only the signature, ``OIDCVerifier`` the claims.
private struct SignatureOnly: JWTPayload {
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
