import _CryptoExtras
import Foundation
import Hummingbird
import JWTKit
import ServiceKit
import Synchronization

/// An RS256 key pair standing in for Google's or Apple's ID-token signing key.
struct SSOSigningKey: Sendable {
    let kid: String
    let privateKey: JWTKit.Insecure.RSA.PrivateKey

    init(kid: String) throws {
        self.kid = kid
        self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    var publicKey: JWTKit.Insecure.RSA.PublicKey { privateKey.publicKey }

    /// This key as a JWK Set entry, as the providers publish it.
    var jwk: JSONWebKey { try! JSONWebKey(rs256: publicKey, keyID: kid) }

    /// `claims` signed RS256 with this key, `kid` in the header.
    func sign(_ claims: SSOClaims) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Keys are slow to generate, so the suite shares them.
    static let provider = try! SSOSigningKey(kid: "provider-key-1")
    static let stranger = try! SSOSigningKey(kid: "not-published")
}

/// The claims of a Google or Apple ID token, with every part overridable.
struct SSOClaims: JWTPayload {
    /// `email_verified` as Google (bool) or Apple (string) sends it.
    enum Flag: Sendable {
        case bool(Bool)
        case string(String)
    }

    var iss: String
    var aud: [String]
    var audienceAsArray = false
    var sub: String
    var iat: Date
    var exp: Date
    var nbf: Date?
    var email: String?
    var emailVerified: Flag?
    var name: String?
    var nonce: String?

    static let googleClientID = "1234-web.apps.googleusercontent.com"
    static let appleClientID = "com.example.waypoint"

    static func google(now: Date = Date()) -> SSOClaims {
        SSOClaims(
            iss: "https://accounts.google.com", aud: [googleClientID], sub: "110169484474386276334",
            iat: now.addingTimeInterval(-10), exp: now.addingTimeInterval(3600),
            email: "ada@example.com", emailVerified: .bool(true), name: "Ada Lovelace"
        )
    }

    static func apple(now: Date = Date()) -> SSOClaims {
        SSOClaims(
            iss: "https://appleid.apple.com", aud: [appleClientID], audienceAsArray: true, sub: "001234.abcdef0123456789.0042",
            iat: now.addingTimeInterval(-10), exp: now.addingTimeInterval(600),
            email: "x7gq@privaterelay.appleid.com", emailVerified: .string("true")
        )
    }

    private enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, nbf, email, emailVerified = "email_verified", name, nonce
    }

    init(
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

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "tests only encode SSOClaims"))
    }

    func encode(to encoder: any Encoder) throws {
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

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Hand-made tokens for the attacks the verifier must refuse.
enum SSOTokenForge {
    /// `{"alg":"none"}` with an empty signature.
    static func unsigned(_ claims: SSOClaims, kid: String) throws -> String {
        "\(try segment(["alg": "none", "typ": "JWT", "kid": kid])).\(try segment(claims))."
    }

    /// HS256 with the provider's public key (PEM) as the HMAC secret: the key-confusion attack.
    static func hmacWithPublicKey(_ claims: SSOClaims, key: SSOSigningKey) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Array(key.publicKey.pemRepresentation.utf8)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: key.kid))
    }

    /// `token` with its payload replaced by `claims`, the original signature kept.
    static func tampered(_ token: String, with claims: SSOClaims) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        return [parts[0], try segment(claims), parts[2]].joined(separator: ".")
    }

    static func segment(_ value: some Encodable) throws -> String {
        try JSONEncoder().encode(value).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A provider's JWKS endpoint on 127.0.0.1 (ephemeral port), counting fetches.
final class SSOKeysEndpoint: Sendable {
    private let state: Mutex<(keys: [JSONWebKey], requests: Int)>

    init(keys: [SSOSigningKey]) {
        state = Mutex((keys.map(\.jwk), 0))
    }

    /// How many times the key set was fetched.
    var requests: Int { state.withLock { $0.requests } }

    /// Serves the key set at `/oauth2/v3/certs` while `body` runs with the endpoint's URL.
    func serve<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.get("/oauth2/v3/certs") { _, _ in
            let keys = self.state.withLock { state in
                state.requests += 1
                return state.keys
            }
            let json = try JSONWebKeySet(keys: keys).jsonString()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
            logger: SSOKeysEndpoint.quietLogger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body("http://127.0.0.1:\(port)/oauth2/v3/certs")
        }
    }

    /// Hummingbird's logger with only critical messages (the test target does not import Logging).
    static let quietLogger = {
        var logger = Application(router: Router()).logger
        logger.logLevel = .critical
        return logger
    }()
}
