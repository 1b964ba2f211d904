/// `waypoint-bench navigation`'s JSON line (`docs/benchmarks.md`, `## navigation`); latencies in ms, p50/p99 by nearest
/// rank; every key always printed.
struct NavigationFigures: Encodable {
    /// What the run ran on: cores, load average at the start and end, storage, sizes.
    var machine: Machine
    var routeHTTP: RouteFigures
    var positionUpdate: PositionFigures
    var pushLatency: Counted
    var reroute: RerouteFigures
    var overlayApplyMilliseconds: Double
    var overlayRebuild: OverlayRebuild
    var sessions: SessionFigures
    var targets: [String: Target]

    struct Machine: Encodable {
        var cores: Int
        var loadAverageStart: String
        var loadAverageEnd: String
        var storage: String
        var quick: Bool
        var note: String

        enum CodingKeys: String, CodingKey {
            case cores, storage, quick, note
            case loadAverageStart = "load_average_start", loadAverageEnd = "load_average_end"
        }
    }

    /// Latencies with how many were timed.
    struct Counted: Encodable {
        var latencies: Latencies
        var count: Int

        enum CodingKeys: String, CodingKey { case p50, p99, max, n }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(latencies.roundedPercentile(0.50), forKey: .p50)
            try container.encode(latencies.roundedPercentile(0.99), forKey: .p99)
            try container.encode(latencies.roundedPercentile(1.0), forKey: .max)
            try container.encode(count, forKey: .n)
        }
    }

    struct RouteFigures: Encodable {
        /// Over the 200 answers.
        var latencies: Latencies
        var requests: Int
        var ok: Int
        /// 422 `NoRoute` / `NoSegment`: answers, not failures.
        var noRoute: Int
        var errors: Int
        var rateRPS: Int
        var achievedRPS: Double
        var durationS: Int

        enum CodingKeys: String, CodingKey {
            case p50, p99, max, requests, ok, errors
            case noRoute = "no_route", rateRPS = "rate_rps", achievedRPS = "achieved_rps", durationS = "duration_s"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(latencies.roundedPercentile(0.50), forKey: .p50)
            try container.encode(latencies.roundedPercentile(0.99), forKey: .p99)
            try container.encode(latencies.roundedPercentile(1.0), forKey: .max)
            try container.encode(requests, forKey: .requests)
            try container.encode(ok, forKey: .ok)
            try container.encode(noRoute, forKey: .noRoute)
            try container.encode(errors, forKey: .errors)
            try container.encode(rateRPS, forKey: .rateRPS)
            try container.encode((achievedRPS * 10).rounded() / 10, forKey: .achievedRPS)
            try container.encode(durationS, forKey: .durationS)
        }
    }

    struct PositionFigures: Encodable {
        var inProcess: Counted
        var gateway: Counted
        /// Non-200 answers of the gateway phase.
        var gatewayErrors: Int

        enum CodingKeys: String, CodingKey {
            case inProcess = "in_process", gateway, gatewayErrors = "gateway_errors"
        }
    }

    struct RerouteFigures: Encodable {
        var timed: Counted
        /// Third fixes that did reroute (the others are not timed).
        var rerouted: Int
        var attempts: Int

        enum CodingKeys: String, CodingKey { case p50, p99, max, n, rerouted, attempts }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(timed.latencies.roundedPercentile(0.50), forKey: .p50)
            try container.encode(timed.latencies.roundedPercentile(0.99), forKey: .p99)
            try container.encode(timed.latencies.roundedPercentile(1.0), forKey: .max)
            try container.encode(timed.count, forKey: .n)
            try container.encode(rerouted, forKey: .rerouted)
            try container.encode(attempts, forKey: .attempts)
        }
    }

    struct OverlayRebuild: Encodable {
        /// The rebuild of the swap that made the layer whole (`ms` of the overlay's "community layer swapped" line).
        var lastMilliseconds: Double
        var maxMilliseconds: Double
        var swaps: Int
        var events: Int
        var paths: Int

        enum CodingKeys: String, CodingKey {
            case lastMilliseconds = "last_ms", maxMilliseconds = "max_ms", swaps, events, paths
        }
    }

    struct SessionFigures: Encodable {
        var via: String
        var sessions: Int
        /// Sessions whose every fix was answered 200.
        var held: Int
        var seconds: Int
        var fixes: Int
        var errors: Int
        var errorBreakdown: [String: Int]
        var achievedFixRate: Double
        var update: Latencies

        enum CodingKeys: String, CodingKey {
            case via, sessions, held, seconds, fixes, errors
            case errorBreakdown = "error_breakdown", achievedFixRate = "achieved_fix_rate", update = "update_ms"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(via, forKey: .via)
            try container.encode(sessions, forKey: .sessions)
            try container.encode(held, forKey: .held)
            try container.encode(seconds, forKey: .seconds)
            try container.encode(fixes, forKey: .fixes)
            try container.encode(errors, forKey: .errors)
            try container.encode(errorBreakdown, forKey: .errorBreakdown)
            try container.encode((achievedFixRate * 10).rounded() / 10, forKey: .achievedFixRate)
            try container.encode(update, forKey: .update)
        }
    }

    /// A target of issue 21 and whether the run met it.
    struct Target: Encodable {
        var target: String
        var value: Double
        var met: Bool
    }

    enum CodingKeys: String, CodingKey {
        case machine, sessions, targets
        case routeHTTP = "route_http_ms", positionUpdate = "position_update_ms", pushLatency = "push_latency_ms", reroute = "reroute_ms"
        case overlayApplyMilliseconds = "overlay_apply_ms", overlayRebuild = "overlay_rebuild"
    }

    /// The targets of issue 21 for these figures.
    static func targets(route: RouteFigures, positions: PositionFigures, push: Counted, sessions: SessionFigures, fullSize: Bool) -> [String: Target] {
        func below(_ value: Double, _ limit: Double, _ text: String) -> Target {
            Target(target: text, value: (value * 1_000).rounded() / 1_000, met: value <= limit)
        }
        return [
            "route_gateway_p99": below(route.latencies.percentile(0.99), 15, "p99 ≤ 15 ms through the gateway (and no errors)")
                .with(met: route.errors == 0),
            "position_in_process_p99": below(positions.inProcess.latencies.percentile(0.99), 5, "p99 ≤ 5 ms in process"),
            "position_gateway_p99": below(positions.gateway.latencies.percentile(0.99), 15, "p99 ≤ 15 ms through the gateway")
                .with(met: positions.gatewayErrors == 0),
            "push_p99": below(push.latencies.percentile(0.99), 50, "p99 ≤ 50 ms from the position update to the SSE event")
                .with(met: push.count > 0),
            "sessions_5000_at_1_per_s": Target(target: "5,000 sessions at 1 fix/s with zero errors (via \(sessions.via))", value: Double(sessions.errors),
                                               met: fullSize && sessions.sessions >= 5_000 && sessions.errors == 0
                                                   && sessions.achievedFixRate >= 0.98 * Double(sessions.sessions)),
        ]
    }
}

extension NavigationFigures.Target {
    /// Also requires `condition`.
    func with(met condition: Bool) -> Self {
        var copy = self
        copy.met = met && condition
        return copy
    }
}
