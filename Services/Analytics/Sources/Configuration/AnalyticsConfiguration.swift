import Contracts
import Foundation
import Messaging
import ServiceKit

/// Everything `analytics` reads at start-up: ServiceKit's keys (port 8086 by default), the runtime's storage and
/// transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`), the producers' base URLs
/// for the embedded feed (`WAYPOINT_AUTH_URL`, `WAYPOINT_TOUR_MANAGEMENT_URL`, and — when set, as `waypoint up` does for
/// every producer it starts — `WAYPOINT_PATH_REVIEW_URL`, `WAYPOINT_NAVIGATION_URL`, `WAYPOINT_RECORD_TRIP_URL`), and its
/// own keys:
///
/// | key (`WAYPOINT_ANALYTICS_…` or `WAYPOINT_…`) | default | meaning |
/// |---|---|---|
/// | `TOPICS` | `auth,tours,paths,navigation,trips` | topics consumed (short or full names) |
/// | `MAX_LAG_EVENTS` | `10000` | after the start-up catch-up, `/health/ready` fails while a topic lags more |
/// | `BATCH_SIZE` | `50000` | most events applied per transaction (1…100000; the embedded feed is read in pages of 1,000) |
public struct AnalyticsConfiguration: Sendable {
    public static let serviceName = "analytics"
    public static let defaultPort = 8086
    /// Every topic with a producer: analytics consumes them all.
    public static let allTopics: [Topic] = [.auth, .tours, .paths, .navigation, .trips]

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    public var endpoints: ServiceEndpoints
    public var topics: [Topic]
    public var maxLagEvents: Int64
    public var batchSize: Int
    /// How long one poll waits (Kafka poll timeout, embedded long-poll `wait`).
    public var pollTimeout: Duration

    public init(service: ServiceConfiguration, runtime: RuntimeSettings, endpoints: ServiceEndpoints = ServiceEndpoints(),
                topics: [Topic] = AnalyticsConfiguration.allTopics, maxLagEvents: Int64 = 10_000, batchSize: Int = 50_000,
                pollTimeout: Duration = .seconds(1)) {
        self.service = service
        self.runtime = runtime
        self.endpoints = endpoints
        self.topics = topics
        self.maxLagEvents = maxLagEvents
        self.batchSize = batchSize
        self.pollTimeout = pollTimeout
    }

    /// The producer's base URL for the embedded feed: auth and tour-management have defaults (8081, 8082); the path,
    /// navigation and trip producers only when configured, so analytics runs without them and never polls a port where
    /// nothing was started.
    public func producerURL(_ topic: Topic) -> URL? {
        topic.producingService.flatMap { endpoints.baseURL(of: $0) }
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> AnalyticsConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        var topics = allTopics
        if let (key, raw) = reader.value("TOPICS") {
            topics = []
            for name in raw.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
                guard let topic = allTopics.first(where: { $0.name == name || $0.name == "waypoint.\(name)" }) else {
                    throw ConfigurationError(key: key, value: raw, expected: "a comma-separated list of auth, tours, paths, navigation, trips")
                }
                if !topics.contains(topic) { topics.append(topic) }
            }
        }
        return AnalyticsConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment),
            endpoints: try ServiceEndpoints.fromEnvironment(serviceName: serviceName, environment: environment),
            topics: topics,
            maxLagEvents: Int64(try reader.integer("MAX_LAG_EVENTS", default: 10_000, in: 0...1_000_000_000)),
            batchSize: try reader.integer("BATCH_SIZE", default: 50_000, in: 1...100_000))
    }
}
