import Foundation
import ServiceKit

/// The decoded, not yet trusted, parts of a compact JWS ID token.
///
/// Parsed before any key is chosen, so that the header decides nothing by itself: the verifier
/// insists on `RS256` and a `kid` from the provider's own key set.
struct IDTokenParts {
    let header: Header
    let claims: Claims

    /// The protected header.
    struct Header: Decodable {
        let alg: String
        let kid: String?
        let crit: [String]?
    }

    /// The claims of an OpenID Connect ID token that we read. Presence and values are checked by
    /// ``OIDCVerifier``; here a claim of the wrong JSON type makes the token malformed.
    struct Claims: Decodable {
        let issuer: String?
        let audience: [String]
        let expiresAt: Double?
        let issuedAt: Double?
        let notBefore: Double?
        let subject: String?
        let email: String?
        let emailVerified: Bool?
        let name: String?
        let nonce: String?

        private enum CodingKeys: String, CodingKey {
            case issuer = "iss", audience = "aud", expiresAt = "exp", issuedAt = "iat", notBefore = "nbf"
            case subject = "sub", email, emailVerified = "email_verified", name, nonce
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
            // `aud` is a string or an array of strings (RFC 7519 §4.1.3).
            if let single = try? container.decodeIfPresent(String.self, forKey: .audience) {
                audience = [single]
            } else {
                audience = try container.decodeIfPresent([String].self, forKey: .audience) ?? []
            }
            expiresAt = try container.decodeIfPresent(Double.self, forKey: .expiresAt)
            issuedAt = try container.decodeIfPresent(Double.self, forKey: .issuedAt)
            notBefore = try container.decodeIfPresent(Double.self, forKey: .notBefore)
            subject = try container.decodeIfPresent(String.self, forKey: .subject)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            // Google sends a bool; Apple has sent both a bool and the strings "true" / "false".
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
                emailVerified = flag
            } else if let text = try container.decodeIfPresent(String.self, forKey: .emailVerified) {
                emailVerified = text.lowercased() == "true"
            } else {
                emailVerified = nil
            }
            name = try container.decodeIfPresent(String.self, forKey: .name)
            nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        }
    }

    /// Splits and decodes `token`: exactly three segments, a JSON header and a JSON claims object.
    /// The signature segment is only checked later (so `alg: none` is reported as such).
    init(token: String) throws(OIDCError) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let headerJSON = Base64URL.decode(segments[0]),
            let claimsJSON = Base64URL.decode(segments[1]),
            segments[2].isEmpty || Base64URL.decode(segments[2]) != nil
        else { throw .malformed }
        do {
            header = try JSONDecoder().decode(Header.self, from: headerJSON)
            claims = try JSONDecoder().decode(Claims.self, from: claimsJSON)
        } catch {
            throw .malformed
        }
    }
}
