import CoreMetrics
import Messaging
import ServiceKit
import Synchronization

/// How far one topic's consumer is behind, as a metric (`waypoint_consumer_lag_messages{topic,group}`) and as a
/// readiness rule.
///
/// - **Lag**: on Kafka, the sum over the partitions seen of high watermark − next offset (librdkafka's cached
///   watermarks). On the embedded feed, 0 after a page that was not full (the producer served everything after our
///   position as of that read), otherwise head − last position read: an upper bound, since a producer's head also
///   counts internal events its feed never serves (auth's credentials and refresh tokens).
/// - **Readiness**: not ready until the consumer's first catch-up (lag 0 once since start), then not ready while the lag
///   exceeds `maxLag` (`WAYPOINT_ANALYTICS_MAX_LAG_EVENTS`). While the producer or broker is unreachable the lag is
///   unknown and does not count (the kernel's rule: the consumer retries, the service keeps serving what it has).
public final class TopicLag: Sendable {
    public let topic: String
    public let maxLag: Int64
    private let gauge: CoreMetrics.Gauge

    private struct State {
        var lag: Int64?
        var caughtUp = false
    }

    private let state = Mutex(State())

    public init(topic: String, group: String, maxLag: Int64, metrics: ServiceMetrics) {
        self.topic = topic
        self.maxLag = maxLag
        gauge = metrics.consumerLag(topic: topic, group: group)
    }

    /// The last measured lag, `nil` before the first measurement.
    public var lag: Int64? { state.withLock { $0.lag } }

    /// Whether the consumer reached lag 0 since start.
    public var hasCaughtUp: Bool { state.withLock { $0.caughtUp } }

    /// Records a measurement.
    public func record(_ lag: Int64) {
        let lag = max(0, lag)
        state.withLock {
            $0.lag = lag
            if lag == 0 { $0.caughtUp = true }
        }
        gauge.record(Double(lag))
    }

    /// The readiness of the topic's consumer: its own status (starting, failed on a poison event) and the lag rule.
    public func check(_ status: ConsumerStatus) -> CheckResult {
        switch status {
        case .starting: return .notReady("\(topic): consumer starting")
        case .failed(let reason): return .notReady(reason)
        case .running(_, .some): return .ready
        case .running(_, nil):
            let (lag, caughtUp) = state.withLock { ($0.lag, $0.caughtUp) }
            guard caughtUp else { return .notReady("\(topic): catching up after start (\(lag.map { "\($0) events behind" } ?? "lag unknown"))") }
            if let lag, lag > maxLag { return .notReady("\(topic): \(lag) events behind (bound \(maxLag))") }
            return .ready
        }
    }
}
