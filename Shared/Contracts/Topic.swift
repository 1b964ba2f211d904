/// A Kafka topic of the published language: one per producing service, plus the
/// user-facing notifications topic.
///
/// The raw value is the topic name on the broker and the folder name of the topic's
/// golden files (`Tests/Golden/<topic>/`).
public enum Topic: String, CaseIterable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// Users, credentials, roles, sessions and signing keys; produced by `auth`.
    case auth = "waypoint.auth"
    /// Tours, stops, purchases, entitlements and reviews; produced by `tour-management`.
    case tours = "waypoint.tours"
    /// Path drafts, review decisions and the approved path network; produced by `path-review`.
    case paths = "waypoint.paths"
    /// Route searches and navigation sessions; produced by `navigation`.
    case navigation = "waypoint.navigation"
    /// Recorded trips, trip statistics and obstacle candidates; produced by `record-trip`.
    case trips = "waypoint.trips"
    /// User-facing pushes, which any service may publish and the gateway streams to devices.
    case notifications = "waypoint.notifications"

    /// The topic name on the broker, e.g. `waypoint.auth`.
    public var name: String { rawValue }

    /// The executable name of the one service that owns and publishes this topic, e.g.
    /// `tour-management`; `nil` for ``notifications``, which has no single owner.
    public var producingService: String? {
        switch self {
        case .auth: "auth"
        case .tours: "tour-management"
        case .paths: "path-review"
        case .navigation: "navigation"
        case .trips: "record-trip"
        case .notifications: nil
        }
    }

    /// The topic published by the service with this executable name, if it owns one.
    public init?(producingService service: String) {
        guard let topic = Topic.allCases.first(where: { $0.producingService == service }) else {
            return nil
        }
        self = topic
    }

    /// The topic name, as in ``name``.
    public var description: String { rawValue }
}
