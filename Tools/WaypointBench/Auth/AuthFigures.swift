/// The figures of `waypoint-bench auth`, in its JSON shape: rates in whole numbers per second, latencies in
/// milliseconds rounded to 0.1 ms.
struct AuthFigures: Encodable, Sendable {
    /// Access-token verifications per second on one task.
    var jwtVerify: Throughput
    /// Refresh-token rotations per second by 16 concurrent tasks.
    var refresh: Throughput
    /// Latency of the sequential logins.
    var login: Latencies
    /// The bcrypt cost the logins ran at.
    var bcryptCost: Int

    private enum CodingKeys: String, CodingKey {
        case jwtVerify = "jwt_verify_per_s"
        case refresh = "refresh_per_s"
        case login = "login_ms"
        case bcryptCost = "bcrypt_cost"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jwtVerify.roundedPerSecond, forKey: .jwtVerify)
        try container.encode(refresh.roundedPerSecond, forKey: .refresh)
        try container.encode(login, forKey: .login)
        try container.encode(bcryptCost, forKey: .bcryptCost)
    }
}
