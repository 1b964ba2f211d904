import HTTPTypes

/// The IETF draft rate-limit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` announces the quota,
/// `RateLimit` what is left of it.
public enum RateLimitHeaders {
    /// `RateLimit-Policy`.
    public static let policy = HTTPField.Name("RateLimit-Policy")!
    /// `RateLimit`.
    public static let rateLimit = HTTPField.Name("RateLimit")!

    /// `"default";q=600;w=60`.
    public static func policyValue(_ policy: RateLimiter.Policy) -> String {
        "\"\(policy.name)\";q=\(policy.quota);w=\(policy.windowSeconds)"
    }

    /// `"default";r=599;t=1`: `r` requests remain, the quota is whole again in `t` seconds.
    public static func value(_ decision: RateLimiter.Decision, policy: RateLimiter.Policy) -> String {
        "\"\(policy.name)\";r=\(decision.remaining);t=\(decision.resetSeconds)"
    }

    /// Writes both fields into `headers`.
    public static func apply(_ decision: RateLimiter.Decision, policy: RateLimiter.Policy, to headers: inout HTTPFields) {
        headers[Self.policy] = policyValue(policy)
        headers[Self.rateLimit] = value(decision, policy: policy)
    }
}
