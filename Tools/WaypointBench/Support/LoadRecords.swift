import NIOCore
import NIOHTTP1

/// One request of a run: to which target (index into the run's targets), which method and path, with which body (sent
/// as JSON), of which kind (a tag of the bench's own: the gateway's `RequestKind`, say).
struct PlannedRequest: Sendable {
    var target: Int
    var method: HTTPMethod
    var path: String
    var body: ByteBuffer?
    var kind: Int

    init(target: Int, method: HTTPMethod = .GET, path: String, body: ByteBuffer? = nil, kind: Int = 0) {
        self.target = target
        self.method = method
        self.path = path
        self.body = body
        self.kind = kind
    }
}

/// How a request ended.
enum RequestOutcome: Sendable, Equatable {
    case pending
    case answered(status: Int)
    case timedOut
    case connectionFailed

    /// Whether the request failed: anything but a 2xx answer.
    var isError: Bool {
        guard case .answered(let status) = self else { return true }
        return !(200..<300).contains(status)
    }

    /// `status 429`, `timeout`, `connection`: the key of the error breakdown.
    var label: String {
        switch self {
        case .pending: "pending"
        case .answered(let status): "status \(status)"
        case .timedOut: "timeout"
        case .connectionFailed: "connection"
        }
    }
}

/// Everything an ``OpenLoopLoad`` run observed, per planned request (same indices as the plan).
struct LoadRecords: Sendable {
    var plan: [PlannedRequest]
    /// From the intended send time to the complete answer (or the failure), per request.
    var latencyNanoseconds: [Int64]
    /// From the intended send time to the actual write, per request: the client's own lateness (timer wake-up, a
    /// busy event loop) plus the wait for a free connection.
    var sendLagNanoseconds: [Int64]
    var outcomes: [RequestOutcome]
    /// Whether the gateway's cache served the answer (`X-Cache: hit`), per request.
    var cacheHit: [Bool]
    var bodyBytes = 0
    /// The start of the body of each error answer, by request index.
    var errorBodies: [Int: String] = [:]
    /// Requests that found every connection of their target busy and waited.
    var queued = 0
    var reconnects = 0
    var connectFailures = 0
    var startedAt = NIODeadline.now()
    var generatedAt = NIODeadline.now()
    var finishedAt = NIODeadline.now()

    init(plan: [PlannedRequest]) {
        self.plan = plan
        latencyNanoseconds = Array(repeating: 0, count: plan.count)
        sendLagNanoseconds = Array(repeating: 0, count: plan.count)
        outcomes = Array(repeating: .pending, count: plan.count)
        cacheHit = Array(repeating: false, count: plan.count)
    }

    /// Answers the gateway's cache served.
    var cacheHits: Int { cacheHit.count { $0 } }

    /// Latencies (ms) of the requests `include` selects, failed ones included (a timeout counts with its full wait).
    func latencies(where include: (PlannedRequest) -> Bool = { _ in true }) -> Latencies {
        indexedLatencies { include(plan[$0]) }
    }

    /// Latencies (ms) of the requests whose index `include` selects.
    func indexedLatencies(_ include: (Int) -> Bool) -> Latencies {
        var latencies = Latencies(resolution: 0.01)
        for index in plan.indices where include(index) {
            latencies.record(.nanoseconds(latencyNanoseconds[index]))
        }
        return latencies
    }

    /// The client's send lag (ms) over every request.
    var sendLag: Latencies {
        var lag = Latencies(resolution: 0.01)
        for value in sendLagNanoseconds { lag.record(.nanoseconds(value)) }
        return lag
    }

    /// Failed requests: non-2xx answers, timeouts and connection failures.
    var errors: Int { outcomes.count { $0.isError } }

    /// Failed requests by ``RequestOutcome/label``.
    var errorBreakdown: [String: Int] {
        outcomes.filter(\.isError).reduce(into: [:]) { $0[$1.label, default: 0] += 1 }
    }

    /// Up to `count` failed requests as `label path`, for the progress log.
    func errorSamples(_ count: Int) -> [String] {
        plan.indices.filter { outcomes[$0].isError }.prefix(count).map { "\(outcomes[$0].label) \(plan[$0].path)" }
    }

    /// Wall time from the first intended send to the last answer.
    var wallTime: Duration { .nanoseconds((finishedAt - startedAt).nanoseconds) }

    /// Requests actually sent per second of generation (the rate the client achieved).
    var achievedRate: Double {
        let seconds = Double((generatedAt - startedAt).nanoseconds) / 1e9
        return seconds > 0 ? Double(plan.count - 1) / seconds : 0
    }
}

extension Latencies {
    /// The nearest-rank percentile `p` (0…1) in milliseconds, rounded to `resolution`.
    func roundedPercentile(_ p: Double) -> Double {
        let scale = (1 / resolution).rounded()
        return (percentile(p) * scale).rounded() / scale
    }
}
