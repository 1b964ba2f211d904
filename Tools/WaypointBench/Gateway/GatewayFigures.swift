/// The `gateway` report: `{"rate_rps", "duration_s", "latency_ms": {"p50", "p90", "p99", "p999"}, "errors",
/// "overhead_p50_ms", "idle_connections_held", "gateway_rss_mb"}` (the keys of issue 8's targets), `"bike"` (issue 22:
/// ``BikeFigures``, `null` without a bike mix) and the peer phase's `"proxy"`, `"peer"`, `"ratio"` (issue 23:
/// ``ProxyComparison``, `null` with `--peer-requests 0`). Every key is always printed; with `--only proxy` the keys of
/// the phases that did not run are `null`.
struct GatewayFigures: Encodable, Sendable {
    /// Percentiles of the mixed load's latency, in ms to 0.01, measured from each request's intended send time.
    struct LatencyPercentiles: Encodable, Sendable {
        var p50: Double
        var p90: Double
        var p99: Double
        var p999: Double

        init(_ latencies: Latencies) {
            p50 = latencies.roundedPercentile(0.50)
            p90 = latencies.roundedPercentile(0.90)
            p99 = latencies.roundedPercentile(0.99)
            p999 = latencies.roundedPercentile(0.999)
        }
    }

    /// Intended arrival rate of the mixed load, requests per second.
    var rateRps: Int?
    /// Measured seconds of the mixed load (after the warm-up).
    var durationS: Int?
    var latencyMs: LatencyPercentiles?
    /// Failed requests of the mixed load: non-2xx answers, timeouts, connection failures.
    var errors: Int?
    /// p50 through the gateway − p50 directly to tour-management, same requests, ms to 0.01.
    var overheadP50Ms: Double?
    /// Idle keep-alive connections still open (and answering, on a sample) after the hold.
    var idleConnectionsHeld: Int?
    /// The gateway process's resident memory while holding them, MiB to 0.1.
    var gatewayRssMb: Double?
    /// The bike mix's figures; `nil` (`null`) with `--bike-rate 0`.
    var bike: BikeFigures?
    /// The peer phase's figures; `nil` (`null` for `proxy`, `peer` and `ratio`) with `--peer-requests 0`.
    var peers: ProxyComparison? = nil

    private enum CodingKeys: String, CodingKey {
        case rateRps = "rate_rps", durationS = "duration_s", latencyMs = "latency_ms", errors
        case overheadP50Ms = "overhead_p50_ms", idleConnectionsHeld = "idle_connections_held", gatewayRssMb = "gateway_rss_mb", bike
        case proxy, peer, ratio
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rateRps, forKey: .rateRps)
        try container.encode(durationS, forKey: .durationS)
        try container.encode(latencyMs, forKey: .latencyMs)
        try container.encode(errors, forKey: .errors)
        try container.encode(overheadP50Ms, forKey: .overheadP50Ms)
        try container.encode(idleConnectionsHeld, forKey: .idleConnectionsHeld)
        try container.encode(gatewayRssMb, forKey: .gatewayRssMb)
        try container.encode(bike, forKey: .bike)
        try container.encode(peers?.proxy, forKey: .proxy)
        try container.encode(peers?.peer, forKey: .peer)
        try container.encode(peers?.ratio, forKey: .ratio)
    }
}
