import Foundation
import JWTKit

/// The claims of a Google or Apple OpenID Connect ID token, with every part overridable, for SSO tests.
public struct IDTokenClaims: JWTPayload {
    /// `email_verified` as Google (bool) or Apple (string) sends it.
    public enum Flag: Sendable {
        case bool(Bool)
        case string(String)
    }

    public var iss: String
    public var aud: [String]
    public var audienceAsArray = false
    public var sub: String
    public var iat: Date
    public var exp: Date
    public var nbf: Date?
    public var email: String?
    public var emailVerified: Flag?
    public var name: String?
    public var nonce: String?

    public static let googleClientID = "1234-web.apps.googleusercontent.com"
    public static let appleClientID = "com.example.waypoint"

    public static func google(now: Date = Date()) -> IDTokenClaims {
        IDTokenClaims(
            iss: "https://accounts.google.com", aud: [googleClientID], sub: "110169484474386276334",
            iat: now.addingTimeInterval(-10), exp: now.addingTimeInterval(3600),
            email: "ada@example.com", emailVerified: .bool(true), name: "Ada Lovelace"
        )
    }

    public static func apple(now: Date = Date()) -> IDTokenClaims {
        IDTokenClaims(
            iss: "https://appleid.apple.com", aud: [appleClientID], audienceAsArray: true, sub: "001234.abcdef0123456789.0042",
            iat: now.addingTimeInterval(-10), exp: now.addingTimeInterval(600),
            email: "x7gq@privaterelay.appleid.com", emailVerified: .string("true")
        )
    }

    private enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, nbf, email, emailVerified = "email_verified", name, nonce
    }

    public init(
        iss: String, aud: [String], audienceAsArray: Bool = false, sub: String, iat: Date, exp: Date, nbf: Date? = nil,
        email: String? = nil, emailVerified: Flag? = nil, name: String? = nil, nonce: String? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.audienceAsArray = audienceAsArray
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.nbf = nbf
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.nonce = nonce
    }

    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "tests only encode IDTokenClaims"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        if aud.count == 1, !audienceAsArray {
            try container.encode(aud[0], forKey: .aud)
        } else {
            try container.encode(aud, forKey: .aud)
        }
        try container.encode(sub, forKey: .sub)
        try container.encode(Int(iat.timeIntervalSince1970), forKey: .iat)
        try container.encode(Int(exp.timeIntervalSince1970), forKey: .exp)
        try container.encodeIfPresent(nbf.map { Int($0.timeIntervalSince1970) }, forKey: .nbf)
        try container.encodeIfPresent(email, forKey: .email)
        switch emailVerified {
        case .bool(let flag): try container.encode(flag, forKey: .emailVerified)
        case .string(let text): try container.encode(text, forKey: .emailVerified)
        case nil: break
        }
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(nonce, forKey: .nonce)
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
