import Foundation

// The published language of `navigation` on `waypoint.navigation` (issue 21, point 9): what happened to a navigation
// session, with its distances and durations — never a position, a track, a destination or the rider (a session is a
// person's movements; analytics counts sessions, not people). Stream (Kafka key): `navigation-session-<sessionId>`.

/// What a session guides to.
public enum NavigationSessionKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// A route between points (`POST /v1/navigation/sessions`).
    case route
    /// A tour's stops in order (`POST /v1/navigation/tour-sessions`).
    case tour
}

/// A rider started a navigation session on a planned route.
public struct NavigationSessionStarted: IntegrationEvent, Hashable {
    public static let eventType = "NavigationSessionStarted"
    public static let schemaVersion = 1
    public static let topic = Topic.navigation

    public var sessionId: UUID
    public var kind: NavigationSessionKind
    /// Which of the search's routes was chosen (0 the best).
    public var alternative: Int
    /// The route's metres and seconds as planned.
    public var plannedDistanceM: Double
    public var plannedDurationS: Double
    /// Via points (tour stops for a tour session) besides origin and destination.
    public var viaPoints: Int
    public var startedAt: Date

    public init(sessionId: UUID, kind: NavigationSessionKind, alternative: Int, plannedDistanceM: Double, plannedDurationS: Double,
                viaPoints: Int, startedAt: Date) {
        self.sessionId = sessionId
        self.kind = kind
        self.alternative = alternative
        self.plannedDistanceM = plannedDistanceM
        self.plannedDurationS = plannedDurationS
        self.viaPoints = viaPoints
        self.startedAt = startedAt
    }
}

/// Why a session was rerouted.
public enum NavigationRerouteReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// The rider left the route (farther than the off-route distance for three usable fixes in a row).
    case offRoute = "off-route"
    /// The rider rode the wrong way along it.
    case wrongWay = "wrong-way"
}

/// A session got a new route from the rider's position.
public struct NavigationRerouted: IntegrationEvent, Hashable {
    public static let eventType = "NavigationRerouted"
    public static let schemaVersion = 1
    public static let topic = Topic.navigation

    public var sessionId: UUID
    public var reason: NavigationRerouteReason
    /// Reroutes of the session so far, this one included.
    public var reroutes: Int
    /// The new route's metres and seconds.
    public var distanceM: Double
    public var durationS: Double
    public var reroutedAt: Date

    public init(sessionId: UUID, reason: NavigationRerouteReason, reroutes: Int, distanceM: Double, durationS: Double, reroutedAt: Date) {
        self.sessionId = sessionId
        self.reason = reason
        self.reroutes = reroutes
        self.distanceM = distanceM
        self.durationS = durationS
        self.reroutedAt = reroutedAt
    }
}

/// A session's rider reached the destination.
public struct NavigationArrived: IntegrationEvent, Hashable {
    public static let eventType = "NavigationArrived"
    public static let schemaVersion = 1
    public static let topic = Topic.navigation

    public var sessionId: UUID
    /// Metres ridden along the routes (progress, reroutes included) and seconds since the start.
    public var distanceM: Double
    public var durationS: Double
    public var reroutes: Int
    public var arrivedAt: Date

    public init(sessionId: UUID, distanceM: Double, durationS: Double, reroutes: Int, arrivedAt: Date) {
        self.sessionId = sessionId
        self.distanceM = distanceM
        self.durationS = durationS
        self.reroutes = reroutes
        self.arrivedAt = arrivedAt
    }
}

/// A session ended (the rider ended it, after arriving or not).
public struct NavigationSessionEnded: IntegrationEvent, Hashable {
    public static let eventType = "NavigationSessionEnded"
    public static let schemaVersion = 1
    public static let topic = Topic.navigation

    public var sessionId: UUID
    public var arrived: Bool
    public var distanceM: Double
    public var durationS: Double
    public var reroutes: Int
    /// The record-trip trip the ride was handed to, if any.
    public var tripId: UUID?
    public var endedAt: Date

    public init(sessionId: UUID, arrived: Bool, distanceM: Double, durationS: Double, reroutes: Int, tripId: UUID?, endedAt: Date) {
        self.sessionId = sessionId
        self.arrived = arrived
        self.distanceM = distanceM
        self.durationS = durationS
        self.reroutes = reroutes
        self.tripId = tripId
        self.endedAt = endedAt
    }
}

/// A traveller on a tour session reached a stop (entered its trigger radius; each stop once per session). The one
/// navigation event that names a person: it is the traveller's own tour progress, which tour-management records
/// (`StopCompleted` on `waypoint.tours`) from this event — navigation never writes tour-management's store.
public struct TourStopReached: IntegrationEvent, Hashable {
    public static let eventType = "TourStopReached"
    public static let schemaVersion = 1
    public static let topic = Topic.navigation

    public var sessionId: UUID
    public var tourId: UUID
    public var stopId: UUID
    /// The stop's place in the tour, 0-based.
    public var stopIndex: Int
    /// The traveller.
    public var userId: UUID
    public var reachedAt: Date

    public init(sessionId: UUID, tourId: UUID, stopId: UUID, stopIndex: Int, userId: UUID, reachedAt: Date) {
        self.sessionId = sessionId
        self.tourId = tourId
        self.stopId = stopId
        self.stopIndex = stopIndex
        self.userId = userId
        self.reachedAt = reachedAt
    }
}
