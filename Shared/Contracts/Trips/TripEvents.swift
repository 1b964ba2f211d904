import Foundation

// The published language of `record-trip` on `waypoint.trips` (issue 19).
//
// A recorded ride is a person's movements (DESIGN, "Personal data"): nothing here carries a track, a sample or a place.
// The rider's id travels with a ride's figures (`TripFinished`, `TripDeleted`: the rider's own statistics in analytics,
// issue 22, erased with the account) and with `RideSubmittedAsPathDraft`, which the rider sends on purpose (path-review
// needs its author); never with an obstacle. Streams: `trip-<tripId>` (trip ids are random UUIDs).

/// The figures of a finished ride: what analytics and the rider's other devices may know. Metres, seconds, m/s.
public struct TripFigures: Codable, Sendable, Hashable {
    /// Length along the cleaned track, metres.
    public var distanceM: Double
    /// Last kept fix − first kept fix, seconds.
    public var elapsedS: Double
    /// Time spent moving, seconds.
    public var movingS: Double
    /// distance ÷ moving time, m/s.
    public var averageSpeedMps: Double
    /// The highest sustained speed, m/s.
    public var maxSpeedMps: Double
    /// Smoothed elevation gain and loss, metres.
    public var elevationGainM: Double
    public var elevationLossM: Double

    /// Figures in metres, seconds and m/s.
    public init(distanceM: Double, elapsedS: Double, movingS: Double, averageSpeedMps: Double, maxSpeedMps: Double,
                elevationGainM: Double, elevationLossM: Double) {
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.movingS = movingS
        self.averageSpeedMps = averageSpeedMps
        self.maxSpeedMps = maxSpeedMps
        self.elevationGainM = elevationGainM
        self.elevationLossM = elevationLossM
    }
}

/// A ride was finished (recorded and closed, or imported) and analysed: its figures and whose ride it was — no track, no
/// start or end place.
public struct TripFinished: IntegrationEvent {
    public static let eventType = "TripFinished"
    public static let schemaVersion = 1
    public static let topic = Topic.trips

    public var tripId: UUID
    /// The rider, so that their own statistics can be kept for them (analytics' `GET /v1/analytics/riders/me`); erased
    /// with their account (`UserErased`, then a `TripDeleted` per trip). `nil` in events published before it was carried.
    public var riderId: UUID?
    /// When the ride started (its first kept fix), truncated to the hour: enough for daily and weekly figures, too coarse
    /// to follow a person. `nil` when no fix was kept.
    public var rideStartedHour: Date?
    /// `recorded` (uploaded in chunks) or `imported` (a GPX file).
    public var source: String
    public var figures: TripFigures
    /// Fixes uploaded, and kept after cleaning.
    public var fixCount: Int
    public var keptFixCount: Int
    /// Metres of the ride put onto the road network by map matching.
    public var matchedLengthM: Double
    /// Obstacle candidates found, before the rider reviews them.
    public var candidateCount: Int
    public var finishedAt: Date

    /// The event with every field given.
    public init(tripId: UUID, riderId: UUID? = nil, rideStartedHour: Date?, source: String, figures: TripFigures, fixCount: Int,
                keptFixCount: Int, matchedLengthM: Double, candidateCount: Int, finishedAt: Date) {
        self.tripId = tripId
        self.riderId = riderId
        self.rideStartedHour = rideStartedHour
        self.source = source
        self.figures = figures
        self.fixCount = fixCount
        self.keptFixCount = keptFixCount
        self.matchedLengthM = matchedLengthM
        self.candidateCount = candidateCount
        self.finishedAt = finishedAt
    }
}

/// A trip was deleted — by its rider (`reason: rider`) or because the rider's account was erased (`account-erased`):
/// every copy of its figures goes too. Published since issue 22 (before, it stayed in record-trip's log).
public struct TripDeleted: IntegrationEvent, Hashable {
    public static let eventType = "TripDeleted"
    public static let schemaVersion = 1
    public static let topic = Topic.trips

    public var tripId: UUID
    public var riderId: UUID
    /// `rider` or `account-erased`.
    public var reason: String
    public var deletedAt: Date

    /// The event with every field given.
    public init(tripId: UUID, riderId: UUID, reason: String, deletedAt: Date) {
        self.tripId = tripId
        self.riderId = riderId
        self.reason = reason
        self.deletedAt = deletedAt
    }
}

/// Kinds of obstacle a rider confirms (the detector's guesses, which the rider may change).
public enum ObstacleKind: String, Codable, Sendable, Hashable, CaseIterable {
    case pothole
    case bump
    case roughSurface = "rough-surface"
}

/// A rider confirmed an obstacle on a street after a ride: where it is (on OSM nodes, DESIGN: the identity of a street
/// piece is OSM's), what it is and how bad. No rider id and no trip id: path-review cannot tell who reported it.
public struct ObstacleConfirmed: IntegrationEvent {
    public static let eventType = "ObstacleConfirmed"
    public static let schemaVersion = 1
    public static let topic = Topic.trips

    /// A fresh id per confirmed obstacle.
    public var obstacleId: UUID
    /// The directed pair of OSM node ids of the street piece it lies on (`[from, to]`); empty when the ride had no
    /// route there (the position alone then places it).
    public var osmNodes: [Int64]
    /// WGS 84 degrees.
    public var latitude: Double
    public var longitude: Double
    public var kind: ObstacleKind
    /// 0…1.
    public var severity: Double
    /// Whether the detector found it (`false`: the rider added it).
    public var detected: Bool
    public var confirmedAt: Date

    /// The event with every field given.
    public init(obstacleId: UUID, osmNodes: [Int64], latitude: Double, longitude: Double, kind: ObstacleKind, severity: Double,
                detected: Bool, confirmedAt: Date) {
        self.obstacleId = obstacleId
        self.osmNodes = osmNodes
        self.latitude = latitude
        self.longitude = longitude
        self.kind = kind
        self.severity = severity
        self.detected = detected
        self.confirmedAt = confirmedAt
    }
}

/// A rider chose to share a ride's route as a path draft for path-review (issue 19, point 7): the route they chose (the
/// matched route, or their correction of it) as OSM nodes and geometry — never the raw track or its times.
public struct RideSubmittedAsPathDraft: IntegrationEvent {
    public static let eventType = "RideSubmittedAsPathDraft"
    public static let schemaVersion = 1
    public static let topic = Topic.trips

    /// The draft's id (path-review's draft is created under it).
    public var draftId: UUID
    /// The rider, who becomes the draft's author: they submit it on purpose, and path-review tells them its fate.
    public var riderId: UUID
    /// One node sequence per continuous stretch.
    public var pieces: [[Int64]]
    /// The geometry of each piece, `[[lng, lat], …]` (GeoJSON order).
    public var geometry: [[[Double]]]
    /// Metres along the geometry.
    public var lengthM: Double
    /// The condition the rider reports, one of path-review's statuses (`optimal`, `medium`, `sufficient`,
    /// `requires-maintenance`), when given.
    public var condition: String?
    public var submittedAt: Date

    /// The event with every field given.
    public init(draftId: UUID, riderId: UUID, pieces: [[Int64]], geometry: [[[Double]]], lengthM: Double, condition: String?,
                submittedAt: Date) {
        self.draftId = draftId
        self.riderId = riderId
        self.pieces = pieces
        self.geometry = geometry
        self.lengthM = lengthM
        self.condition = condition
        self.submittedAt = submittedAt
    }
}
