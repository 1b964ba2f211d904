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

/// Individually timed operations, summarised as p50 and p99.
struct Latencies: Encodable, Sendable, CustomStringConvertible {
    /// Each operation's wall time, in milliseconds.
    private(set) var milliseconds: [Double] = []

    mutating func record(_ duration: Duration) {
        milliseconds.append(duration.seconds * 1_000)
    }

    /// The nearest-rank percentile `p` (0…1) in milliseconds; 0 without samples.
    func percentile(_ p: Double) -> Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    private enum CodingKeys: String, CodingKey {
        case p50, p99
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.rounded(percentile(0.50)), forKey: .p50)
        try container.encode(Self.rounded(percentile(0.99)), forKey: .p99)
    }

    var description: String {
        let (low, high) = (milliseconds.min() ?? 0, milliseconds.max() ?? 0)
        return String(format: "p50 %.1f ms, p99 %.1f ms (min %.1f, max %.1f, n %d)",
                      percentile(0.50), percentile(0.99), low, high, milliseconds.count)
    }

    private static func rounded(_ milliseconds: Double) -> Double {
        (milliseconds * 10).rounded() / 10
    }
}
