import HTTPTypes
import Hummingbird
import ServiceKit

/// The two rate limits of the edge: per client IP on `/v1/auth/*` (policy `auth`) and per user — per IP when anonymous —
/// everywhere else (policy `default`).
///
/// The client IP comes from ``ClientAddressResolver``: the TCP peer's address, or the client a trusted proxy in front of
/// the gateway names in `X-Forwarded-For`; a client's own `X-Forwarded-For` is never believed.
public struct EdgeRateLimits: Sendable {
    /// The limiter of `/v1/auth/*`; `nil` when disabled.
    public let authentication: RateLimiter?
    /// The limiter of every other route; `nil` when disabled.
    public let general: RateLimiter?
    /// Who the client is.
    public let clients: ClientAddressResolver

    /// Limiters from the configured quotas (0 disables a limit), keyed by the clients `clients` names.
    public init(configuration: GatewayConfiguration, clients: ClientAddressResolver) {
        let keys = configuration.rateLimitMaxKeys
        self.clients = clients
        authentication = configuration.authRatePerMinute > 0
            ? RateLimiter(policy: .init(name: "auth", quota: configuration.authRatePerMinute), maximumKeys: keys) : nil
        general = configuration.ratePerMinute > 0
            ? RateLimiter(policy: .init(name: "default", quota: configuration.ratePerMinute), maximumKeys: keys) : nil
    }

    /// Runs `next` when the caller has quota left, with `RateLimit-Policy` and `RateLimit` on the answer; otherwise
    /// 429 `rate-limited` with `Retry-After` and the same fields.
    func apply(
        _ request: Request, context: ServiceRequestContext,
        next: (Request, ServiceRequestContext) async throws -> Response
    ) async throws -> Response {
        let client = clients.client(of: request, context: context)
        guard let verdict = decide(path: request.uri.path, identity: context.identity, client: client) else {
            return try await next(request, context)
        }
        if let problem = verdict.rejection {
            context.logger.notice("rate limited", metadata: ["policy": .string(verdict.policy.name), "key": .string(verdict.key)])
            throw problem
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        verdict.stamp(&response.headers)
        return response
    }

    /// What the limits say about a request to `path` by `identity` (anonymous: `nil`) from `client`: `nil` when no
    /// limit applies; otherwise the decision (one request of the caller's quota is taken when allowed), its policy and
    /// key, and the 429 problem (with `Retry-After` and the rate-limit fields) when refused.
    func decide(path: String, identity: AuthenticatedIdentity?, client: String) -> Verdict? {
        let isAuthentication = RoutePolicies.isAuthentication(path: path)
        guard let limiter = isAuthentication ? authentication : general else { return nil }
        let key = isAuthentication ? "ip:\(client)" : (identity.map { "user:\($0.subject)" } ?? "ip:\(client)")
        let decision = limiter.consume(key)
        guard decision.allowed else {
            var problem = Problem.tooManyRequests(retryAfter: .seconds(decision.retryAfterSeconds),
                                                  detail: "Too many requests; retry in \(decision.retryAfterSeconds) s.")
            RateLimitHeaders.apply(decision, policy: limiter.policy, to: &problem.headers)
            return Verdict(decision: decision, policy: limiter.policy, key: key, rejection: problem)
        }
        return Verdict(decision: decision, policy: limiter.policy, key: key, rejection: nil)
    }

    /// One request's decision (``decide(path:identity:client:)``).
    struct Verdict {
        let decision: RateLimiter.Decision
        let policy: RateLimiter.Policy
        let key: String
        /// The 429 to answer with; `nil` when the request may proceed.
        let rejection: Problem?

        /// Writes `RateLimit-Policy` and `RateLimit` into an answer's fields.
        func stamp(_ headers: inout HTTPFields) {
            RateLimitHeaders.apply(decision, policy: policy, to: &headers)
        }
    }
}

/// ``EdgeRateLimits`` as a middleware, for routes the gateway serves itself (e.g. the push stream).
public struct RateLimitMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext
    let limits: EdgeRateLimits

    /// Applies the limits.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await limits.apply(request, context: context, next: next)
    }
}
