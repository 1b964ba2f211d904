import Contracts
import JWTKit
import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies Waypoint access tokens: RS256 JWTs signed by `auth`, checked against its JWK Set.
///
/// Order of checks: three segments; header `alg` exactly `RS256` (so `none` and `HS256`-with-the-public-key
/// fail); a `kid` that the key source knows (refetching on rotation); the signature (jwt-kit, RSA
/// PKCS#1 v1.5 with SHA-256); the claims of ``AccessTokenClaims``; `exp`, `nbf` and `iat` within
/// ``leeway``; `iss` equal to ``issuer``; `aud` containing ``audience``; finally, when ``revokedSessions`` is set, a
/// session (`sid`) that has not been revoked (``AccessTokenError/sessionRevoked``).
///
/// A token that passed is remembered (``VerifiedTokenCache``, keyed by the token string, until it expires, at most
/// ``cacheCapacity`` tokens): the next use of the same string skips the header, the signature and the claims' decoding
/// but still checks the times, that its `kid` names the same key, and the revocation — so an expired token, a removed
/// key and a revoked session are refused exactly as without the cache.
public struct AccessTokenVerifier: Sendable {
    /// Where public keys come from.
    public let keys: any AccessTokenKeySource
    /// Required `iss`.
    public let issuer: String
    /// Required member of `aud`.
    public let audience: String
    /// Clock skew tolerated on `exp`, `nbf` and `iat` (default 60 s).
    public let leeway: Duration
    /// The current time; injectable for tests.
    public let now: @Sendable () -> Date
    /// Sessions whose tokens are refused although they verify: ``RevokedSessions`` fed from `waypoint.auth`, or auth's
    /// own session store; `nil` checks no revocation.
    public let revokedSessions: (any RevokedSessionLookup)?
    /// One single-key collection per `kid`, built on first use (building one per request cost as much as the check).
    private let collections = KeyCollectionCache()
    /// Tokens that verified, by token string.
    private let verified: VerifiedTokenCache
    /// Tokens remembered at most (0: no cache).
    public var cacheCapacity: Int { verified.capacity }
    /// Tokens remembered now (tests, diagnostics).
    public var cachedTokens: Int { verified.count }
    /// Default of ``cacheCapacity``: more than the tokens of the sessions one instance serves at once.
    public static let defaultCacheCapacity = 20_000

    /// Creates a verifier.
    public init(
        keys: any AccessTokenKeySource,
        issuer: String,
        audience: String,
        leeway: Duration = .seconds(60),
        revokedSessions: (any RevokedSessionLookup)? = nil,
        cacheCapacity: Int = AccessTokenVerifier.defaultCacheCapacity,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.revokedSessions = revokedSessions
        self.verified = VerifiedTokenCache(capacity: cacheCapacity)
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.now = now
    }

    /// The identity proven by `token`.
    ///
    /// - Throws: ``AccessTokenError`` describing the first failed check.
    public func verify(_ token: String) async throws -> AuthenticatedIdentity {
        if let cached = verified.entry(for: token) {
            // Still the same key under that kid (a key set without it refuses the token, as without the cache): the
            // key the source holds at once when it can, else as it answers after a fetch.
            var current = keys.heldKey(for: cached.kid)?.der
            if current == nil { current = try await keys.publicKey(for: cached.kid)?.derRepresentation }
            if let current, current == cached.key {
                return try identity(of: cached.claims)
            }
            verified.remove(token)
        }
        let header = try CompactJWSHeader(token: token)
        guard header.alg == "RS256" else { throw AccessTokenError.unsupportedAlgorithm(header.alg) }
        guard header.crit == nil else { throw AccessTokenError.unsupportedCriticalHeader }
        guard let kid = header.kid, !kid.isEmpty else { throw AccessTokenError.missingKeyID }
        guard let key = try await keys.publicKey(for: kid) else { throw AccessTokenError.unknownKeyID(kid) }
        let collection = await collections.collection(for: kid, key: key)
        let claims: AccessTokenClaims
        do {
            claims = try await collection.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw AccessTokenError.invalidSignatureOrClaims
        }
        let identity = try identity(of: claims)
        verified.store(.init(kid: kid, key: key.derRepresentation, claims: claims), for: token, now: now(), leeway: leeway.timeInterval)
        return identity
    }

    /// The identity of `token` when it verified before and is still good — remembered (``VerifiedTokenCache``), its `kid`
    /// naming the same key the source holds now, within its times, its session not revoked — without waiting: `nil`
    /// whenever that cannot be said at once (not remembered, key not held, or any check fails), and ``verify(_:)``
    /// gives the answer (the gateway's proxy fast path takes such requests the ordinary way).
    public func rememberedIdentity(_ token: String) -> AuthenticatedIdentity? {
        guard let cached = verified.entry(for: token), let current = keys.heldKey(for: cached.kid)?.der,
              current == cached.key
        else { return nil }
        return try? identity(of: cached.claims)
    }

    /// The identity of verified claims once their times, issuer, audience and session are checked (again, for a
    /// remembered token).
    private func identity(of claims: AccessTokenClaims) throws -> AuthenticatedIdentity {
        try validate(claims)
        if let revokedSessions, revokedSessions.isRevoked(sessionId: claims.sessionId) { throw AccessTokenError.sessionRevoked }
        return AuthenticatedIdentity(
            subject: claims.subject.value,
            role: claims.role,
            sessionId: claims.sessionId,
            tokenId: claims.tokenId.value,
            expiresAt: claims.expiresAt.value
        )
    }

    /// Checks times (with ``leeway``), issuer and audience.
    func validate(_ claims: AccessTokenClaims) throws {
        let now = now()
        let leewaySeconds = leeway.timeInterval
        guard now.timeIntervalSince(claims.expiresAt.value) < leewaySeconds else { throw AccessTokenError.expired }
        if let notBefore = claims.notBefore?.value, notBefore.timeIntervalSince(now) > leewaySeconds {
            throw AccessTokenError.notYetValid
        }
        guard claims.issuedAt.value.timeIntervalSince(now) <= leewaySeconds else { throw AccessTokenError.issuedInFuture }
        guard claims.issuer.value == issuer else { throw AccessTokenError.wrongIssuer(claims.issuer.value) }
        guard claims.audience.value.contains(audience) else { throw AccessTokenError.wrongAudience(claims.audience.value) }
    }
}

/// Single-key `JWTKeyCollection`s by `kid`: a collection holding only the token's key, so jwt-kit cannot fall back to
/// another (default) key. A `kid` names one key for good (a rotation brings a new `kid`); the cache keeps the key it was
/// built with and rebuilds if the source ever returns a different one.
final class KeyCollectionCache: Sendable {
    private let entries = Mutex<[String: (key: Insecure.RSA.PublicKey, collection: JWTKeyCollection)]>([:])

    func collection(for kid: String, key: Insecure.RSA.PublicKey) async -> JWTKeyCollection {
        if let cached = entries.withLock({ $0[kid] }), cached.key == key { return cached.collection }
        let collection = JWTKeyCollection()
        await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        entries.withLock { entries in
            if entries.count > 64 { entries.removeAll() }  // bounded: kids come only from the trusted key source
            entries[kid] = (key, collection)
        }
        return collection
    }
}
