import Hummingbird
import Logging

/// Verifies `Authorization: Bearer <access token>` and stores the caller in
/// ``ServiceRequestContext/identity``.
///
/// With ``Requirement/required`` a request without a token gets 401 `unauthenticated`; with
/// ``Requirement/optional`` it proceeds anonymously. A token that is present but invalid is always
/// 401 `invalid-token` with `WWW-Authenticate: Bearer … error="invalid_token"` — also the token of a revoked session,
/// when the verifier has a ``AccessTokenVerifier/revokedSessions`` lookup. When the key set cannot
/// be fetched the answer is 503, because the token may well be valid.
public struct AuthenticationMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Whether a route needs a caller.
    public enum Requirement: Sendable {
        /// No token: 401.
        case required
        /// No token: continue with `identity == nil`.
        case optional
    }

    /// The verifier checking tokens.
    public let verifier: AccessTokenVerifier
    /// Whether a token is mandatory.
    public let requirement: Requirement

    /// Creates the middleware.
    public init(verifier: AccessTokenVerifier, requirement: Requirement = .required) {
        self.verifier = verifier
        self.requirement = requirement
    }

    /// Authenticates the request and runs `next` with the identity set.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let authorization = request.headers[.authorization] else {
            if requirement == .optional { return try await next(request, context) }
            throw Problem.unauthenticated()
        }
        guard let token = Self.bearerToken(in: authorization) else {
            throw Problem.unauthorized("The Authorization header must be `Bearer <access token>`.")
        }
        var context = context
        do {
            let identity = try await verifier.verify(token)
            context.identity = identity
            context.logger[metadataKey: "user_id"] = .string(identity.subject)
        } catch AccessTokenError.keysUnavailable {
            context.logger.warning("access token not verifiable: signing keys unavailable")
            throw Problem.serviceUnavailable("Access tokens cannot be verified right now.", retryAfter: .seconds(10))
        } catch AccessTokenError.sessionRevoked {
            context.logger.info("access token refused", metadata: ["reason": "session revoked"])
            throw Problem.unauthorized("The session of this access token has ended.")
        } catch {
            context.logger.info("access token refused", metadata: ["reason": .string(String(describing: error))])
            throw Problem.unauthorized()
        }
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any.
    public static func bearerToken(in header: String) -> String? {
        // Every request of a signed-in caller passes here with a token of ~800 characters: an ASCII header (all of
        // them in practice) is read as bytes; anything else as characters, as before.
        var utf8 = header.utf8[...]
        if utf8.allSatisfy({ $0 < 0x80 }) {
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            while let first = utf8.first, isBlank(first) { utf8.removeFirst() }
            while let last = utf8.last, isBlank(last) { utf8.removeLast() }
            guard utf8.count > 7, zip(utf8.prefix(7), "bearer ".utf8).allSatisfy({ (0x41...0x5A ~= $0 ? $0 | 0x20 : $0) == $1 }) else { return nil }
            var token = utf8.dropFirst(7)
            while let first = token.first, isBlank(first) { token.removeFirst() }
            guard !token.isEmpty, !token.contains(0x20) else { return nil }
            return String(token)
        }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).trimmingWhitespace()
        guard !token.isEmpty, !token.contains(" ") else { return nil }
        return String(token)
    }
}
