import CoreMetrics
import Metrics
import Prometheus

/// The Prometheus registry of a service and the swift-metrics factory that writes into it.
///
/// Production code uses ``shared``, which also bootstraps the process-wide `MetricsSystem` exactly once
/// (so `Counter(label:)` anywhere in the process lands here). Tests create their own instance with
/// ``init(registry:)`` and stay independent of global state: ServiceKit's own metrics always go through
/// the explicit ``factory``.
public struct ServiceMetrics: Sendable {
    /// The registry `/metrics` exposes.
    public let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory writing into ``registry``.
    public let factory: PrometheusMetricsFactory

    /// Creates metrics backed by `registry`, without touching the global `MetricsSystem`.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = PrometheusMetricsFactory(registry: registry)
    }

    /// The process-wide metrics; the first access bootstraps `MetricsSystem`, later ones do nothing.
    ///
    /// Do not call `MetricsSystem.bootstrap` anywhere else in a Waypoint process.
    public static let shared: ServiceMetrics = {
        let metrics = ServiceMetrics(registry: PrometheusMetricsFactory.defaultRegistry)
        MetricsSystem.bootstrap(metrics.factory)
        return metrics
    }()

    /// Bootstraps the process-wide metrics (idempotent) and returns them; same as ``shared``.
    @discardableResult
    public static func bootstrap() -> ServiceMetrics { shared }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    public func exposition() -> String {
        registry.emitToString()
    }

    /// A gauge named `name` with `labels`; use base units in the name (`_seconds`, `_bytes`, `_events`).
    ///
    /// Every use of one name must pass the same label names (Prometheus families are fixed).
    public func gauge(_ name: String, labels: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: name, dimensions: labels, factory: factory)
    }

    /// `waypoint_projection_lag_events{projection}`: events in the log the projection has not applied yet.
    public func projectionLag(projection: String) -> CoreMetrics.Gauge {
        gauge("waypoint_projection_lag_events", labels: [("projection", projection)])
    }

    /// `waypoint_consumer_lag_messages{topic,group}`: messages on `topic` the consumer group has not processed.
    public func consumerLag(topic: String, group: String) -> CoreMetrics.Gauge {
        gauge("waypoint_consumer_lag_messages", labels: [("topic", topic), ("group", group)])
    }

    /// `waypoint_relay_backlog_events{topic}`: events in the service's log not yet published to `topic`.
    public func relayBacklog(topic: String) -> CoreMetrics.Gauge {
        gauge("waypoint_relay_backlog_events", labels: [("topic", topic)])
    }
}
