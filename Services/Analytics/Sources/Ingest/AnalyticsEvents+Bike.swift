import Contracts
import Foundation

/// The platform's bike counters: one column each of `analytics_bike_days`, incremented on the UTC day of the event's
/// own time (see docs/analytics.md, "Bike figures", for what each counts).
enum BikeCounter: Int, CaseIterable, Sendable, Hashable {
    /// `PathReviewOpened`: a draft entered the review queue.
    case reviewsOpened
    /// `PathReviewClosed`, any outcome: a draft left it.
    case reviewsClosed
    /// `ObstacleConfirmed` on `waypoint.trips`: a rider confirmed an obstacle after a ride.
    case riderObstacles
    /// `PathObstacleConfirmed` with one sighting: an obstacle new on an approved path.
    case pathObstaclesNew
    /// `PathObstacleConfirmed`, any: an approved path's obstacle confirmed (new or seen again).
    case pathObstacleConfirmations
    /// `PathObstacleResolved`.
    case pathObstaclesResolved
    /// `NavigationSessionStarted`, any kind.
    case sessions
    /// `NavigationSessionStarted` of kind `tour`.
    case tourSessions
    /// `NavigationRerouted`.
    case reroutes
    /// `NavigationRerouted` with `reroutes == 1`: a session's first reroute.
    case reroutedSessions
    /// `NavigationArrived`.
    case arrivals

    /// The column in `analytics_bike_days`.
    var column: String {
        switch self {
        case .reviewsOpened: "reviews_opened"
        case .reviewsClosed: "reviews_closed"
        case .riderObstacles: "rider_obstacles"
        case .pathObstaclesNew: "path_obstacles_new"
        case .pathObstacleConfirmations: "path_obstacle_confirmations"
        case .pathObstaclesResolved: "path_obstacles_resolved"
        case .sessions: "sessions"
        case .tourSessions: "tour_sessions"
        case .reroutes: "reroutes"
        case .reroutedSessions: "rerouted_sessions"
        case .arrivals: "arrivals"
        }
    }
}

/// How analytics reads `waypoint.trips`, `waypoint.paths` and `waypoint.navigation` (issue 22). Every other type of
/// those topics (`RideSubmittedAsPathDraft`, `PathApproved`, `PathStatusChanged`, `PathRetired`,
/// `StreetCompatibilityChanged`, `NavigationSessionEnded`, `TourStopReached`, …) is ignored.
extension AnalyticsEvents {
    static let bikeReaders: [String: (schemaVersion: Int, read: Reader)] = [
        TripFinished.eventType: (TripFinished.schemaVersion, { p in
            // Published before the rider's id was carried: nobody's ride (it counts in no rider's figures).
            guard let rider = try p.optionalUUID("riderId") else { return nil }
            let figures = try p.object("figures")
            return .riderTrip(tripId: try p.uuid("tripId"), riderId: rider,
                              at: try p.optionalTimestamp("rideStartedHour") ?? p.timestamp("finishedAt"),
                              distanceMM: try thousandths(figures, "distanceM"), movingMS: try thousandths(figures, "movingS"),
                              elevationGainMM: try thousandths(figures, "elevationGainM"))
        }),
        TripDeleted.eventType: (TripDeleted.schemaVersion, { p in .tripDeleted(tripId: try p.uuid("tripId")) }),
        ObstacleConfirmed.eventType: (ObstacleConfirmed.schemaVersion, { p in
            .bike(at: try p.timestamp("confirmedAt"), counters: [.riderObstacles])
        }),
        PathReviewOpened.eventType: (PathReviewOpened.schemaVersion, { p in
            _ = try p.uuid("draftId")
            return .bike(at: try p.timestamp("openedAt"), counters: [.reviewsOpened])
        }),
        PathReviewClosed.eventType: (PathReviewClosed.schemaVersion, { p in
            let outcome = try p.string("outcome")
            guard PathReviewOutcome(rawValue: outcome) != nil else { throw PayloadError.field("outcome", "unknown outcome '\(outcome)'") }
            let opened = try p.timestamp("openedAt"), closed = try p.timestamp("closedAt")
            guard opened <= closed else { throw PayloadError.field("openedAt", "after closedAt") }
            return .reviewClosed(draftId: try p.uuid("draftId"), outcome: outcome, openedAt: opened, closedAt: closed)
        }),
        PathObstacleConfirmed.eventType: (PathObstacleConfirmed.schemaVersion, { p in
            let sightings = try p.int("sightings")
            guard sightings >= 1 else { throw PayloadError.field("sightings", "\(sightings) is not a count of sightings") }
            return .bike(at: try p.timestamp("confirmedAt"),
                         counters: sightings == 1 ? [.pathObstaclesNew, .pathObstacleConfirmations] : [.pathObstacleConfirmations])
        }),
        PathObstacleResolved.eventType: (PathObstacleResolved.schemaVersion, { p in
            .bike(at: try p.timestamp("resolvedAt"), counters: [.pathObstaclesResolved])
        }),
        NavigationSessionStarted.eventType: (NavigationSessionStarted.schemaVersion, { p in
            // A kind analytics does not know yet still counts as a session.
            let kind = try p.string("kind")
            return .bike(at: try p.timestamp("startedAt"), counters: kind == NavigationSessionKind.tour.rawValue ? [.sessions, .tourSessions] : [.sessions])
        }),
        NavigationRerouted.eventType: (NavigationRerouted.schemaVersion, { p in
            let count = try p.int("reroutes")
            guard count >= 1 else { throw PayloadError.field("reroutes", "\(count) is not a count of reroutes") }
            return .bike(at: try p.timestamp("reroutedAt"), counters: count == 1 ? [.reroutes, .reroutedSessions] : [.reroutes])
        }),
        NavigationArrived.eventType: (NavigationArrived.schemaVersion, { p in
            .bike(at: try p.timestamp("arrivedAt"), counters: [.arrivals])
        }),
    ]

    /// A non-negative figure in metres or seconds as whole thousandths (millimetres, milliseconds), rounded: integers
    /// sum exactly and in any order, so replays and both backends agree to the last digit.
    static func thousandths(_ p: PayloadReader, _ key: String) throws -> Int64 {
        let value = try p.double(key)
        guard value >= 0, value < 1e12 else { throw PayloadError.field(key, "\(value) is not a figure between 0 and 10¹²") }
        return Int64((value * 1_000).rounded())
    }
}
