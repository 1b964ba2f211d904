import Foundation

// The answers about the bike side (issue 22): a rider's own rides, and the platform's review, obstacle and navigation
// figures. Distances and elevations in metres, durations in seconds (base units), periods in UTC.

/// A rider's rides over a range or one period of it.
public struct RideTotals: Codable, Sendable, Hashable {
    /// Finished rides that started in the range.
    public var trips: Int64
    public var distanceM: Double
    public var movingTimeS: Double
    public var elevationGainM: Double

    public init(trips: Int64 = 0, distanceM: Double = 0, movingTimeS: Double = 0, elevationGainM: Double = 0) {
        self.trips = trips
        self.distanceM = distanceM
        self.movingTimeS = movingTimeS
        self.elevationGainM = elevationGainM
    }
}

/// One ISO week or calendar month of a rider's figures.
public struct RiderPeriod: Codable, Sendable, Hashable {
    /// `2026-W05` for an ISO week, `2026-02` for a month.
    public var period: String
    /// The period's first and last UTC day inside the requested range (edge periods are cut to it).
    public var from: String
    public var to: String
    public var trips: Int64
    public var distanceM: Double
    public var movingTimeS: Double
    public var elevationGainM: Double
}

/// `GET /v1/analytics/riders/me`: the caller's rides per ISO week and calendar month (dense: every period overlapping
/// the range is listed, empty ones with zeros).
public struct RiderAnalytics: Codable, Sendable, Hashable {
    public var riderId: String
    public var from: String
    public var to: String
    public var totals: RideTotals
    public var weeks: [RiderPeriod]
    public var months: [RiderPeriod]
}

/// The review queue of path drafts.
public struct ReviewFigures: Codable, Sendable, Hashable {
    /// Drafts waiting for a decision at the end of `to` (published and neither decided nor withdrawn by then).
    public var queueLength: Int64
    /// Drafts published (entered the queue) in the range, a re-publication after a send-back included.
    public var submitted: Int64
    /// Moderators' decisions in the range: approvals + rejections + send-backs.
    public var decisions: Int64
    public var approved: Int64
    public var rejected: Int64
    public var sentBack: Int64
    /// Drafts that left the queue undecided in the range (their author's account was erased).
    public var withdrawn: Int64
    /// approved / (approved + rejected), 4 decimals; `null` without either.
    public var approvalRate: Double?
    /// The median, over the range's decisions, of decision time − publication time, in seconds; `null` without decisions.
    public var medianTimeToDecisionS: Double?
}

/// Obstacles reported and confirmed.
public struct ObstacleFigures: Codable, Sendable, Hashable {
    /// Obstacles riders confirmed after their rides (`ObstacleConfirmed` on `waypoint.trips`).
    public var confirmedByRiders: Int64
    /// Obstacles that appeared on approved paths (first sighting).
    public var newOnPaths: Int64
    /// Confirmations of approved paths' obstacles, first sightings and sightings again.
    public var confirmationsOnPaths: Int64
    /// Obstacles gone from approved paths (resolved, faded or retired with their path).
    public var resolvedOnPaths: Int64
}

/// Navigation sessions.
public struct NavigationFigures: Codable, Sendable, Hashable {
    /// Sessions started in the range (route and tour sessions).
    public var sessions: Int64
    public var tourSessions: Int64
    /// Reroutes in the range.
    public var reroutes: Int64
    /// Sessions rerouted at least once (counted on the day of their first reroute).
    public var reroutedSessions: Int64
    /// reroutes / sessions, 4 decimals; `null` without sessions.
    public var reroutesPerSession: Double?
    /// reroutedSessions / sessions, 4 decimals; `null` without sessions.
    public var reroutedSessionRate: Double?
    /// Sessions whose rider reached the destination.
    public var arrivals: Int64
}

/// `GET /v1/analytics/bike`: the platform's bike figures, for administrators and moderators.
public struct BikeFigures: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    public var review: ReviewFigures
    public var obstacles: ObstacleFigures
    public var navigation: NavigationFigures
}

/// What the rider's chart shows.
public enum RiderMetric: String, Sendable, CaseIterable {
    case distance
    case movingTime = "moving-time"
    case elevation
    case trips

    /// The value of `period` in the chart's unit (km, hours, m, rides).
    func value(_ period: RiderPeriod) -> Double {
        switch self {
        case .distance: period.distanceM / 1_000
        case .movingTime: period.movingTimeS / 3_600
        case .elevation: period.elevationGainM
        case .trips: Double(period.trips)
        }
    }

    /// The chart's title word and y-axis title.
    var names: (title: String, axis: String) {
        switch self {
        case .distance: ("Distance", "Distance (km)")
        case .movingTime: ("Moving time", "Moving time (h)")
        case .elevation: ("Elevation gain", "Elevation gain (m)")
        case .trips: ("Rides", "Rides")
        }
    }
}

/// The rider chart's bars: ISO weeks or calendar months.
public enum RiderPeriodKind: String, Sendable, CaseIterable {
    case week, month
}
