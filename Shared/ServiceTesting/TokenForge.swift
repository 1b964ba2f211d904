import Contracts
import Foundation
import JWTKit
import ServiceKit

/// Builds valid and deliberately broken access tokens.
public enum TokenForge {
    public static let issuer = "waypoint-auth"
    public static let audience = "waypoint"

    /// Claims that pass every check, with overridable parts.
    public static func claims(
        subject: String = "user-42",
        sessionId: String = "session-7",
        role: Role = .traveller,
        issuer: String = issuer,
        audience: String = audience,
        issuedAt: Date = Date(),
        notBefore: Date? = nil,
        expiresAt: Date = Date().addingTimeInterval(900)
    ) -> AccessTokenClaims {
        AccessTokenClaims(
            subject: subject,
            role: role,
            sessionId: sessionId,
            tokenId: UUID().uuidString,
            issuer: issuer,
            audience: audience,
            issuedAt: issuedAt,
            notBefore: notBefore,
            expiresAt: expiresAt
        )
    }

    /// A valid token of the primary key.
    public static func valid(role: Role = .traveller) async throws -> String {
        try await TestSigningKey.primary.sign(claims(role: role))
    }

    /// A valid token of the primary key for `subject` with `role`, as `auth` issues them.
    public static func token(_ subject: String, role: Role = .traveller) async throws -> String {
        try await TestSigningKey.primary.sign(claims(subject: subject, role: role))
    }

    /// A valid token of the primary key for the user `id` (its lower-case UUID is the subject) with `role`.
    public static func token(_ user: UUID, _ role: Role = .traveller) async throws -> String {
        try await token(user.uuidString.lowercased(), role: role)
    }

    /// `token` with its payload replaced by `claims` and the original signature kept.
    public static func tampered(_ token: String, with claims: some Encodable) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        return [parts[0], try encodeSegment(claims), parts[2]].joined(separator: ".")
    }

    /// An unsigned token: `{"alg":"none"}`, an empty signature (access-token claims unless others are given).
    public static func unsigned(kid: String, claims payload: (any Encodable)? = nil) throws -> String {
        let header = try encodeSegment(["alg": "none", "typ": "JWT", "kid": kid])
        return "\(header).\(try encodeSegment(payload ?? claims()))."
    }

    /// The classic key-confusion attack: HS256 with the RSA public key (PEM) as the HMAC secret (admin access-token
    /// claims unless others are given).
    public static func hmacWithPublicKey(_ key: TestSigningKey) async throws -> String {
        try await hmacWithPublicKey(key, claims: claims(role: .admin))
    }

    /// The key-confusion attack with any claims (an ID token, say).
    public static func hmacWithPublicKey(_ key: TestSigningKey, claims payload: some JWTPayload) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Array(key.publicKey.pemRepresentation.utf8)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        return try await keys.sign(payload, kid: JWKIdentifier(string: key.kid))
    }

    public static func encodeSegment(_ value: any Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(value).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
