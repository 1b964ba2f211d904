import Foundation

// The published language of `tour-management` on `waypoint.tours`: a traveller walking a tour (issue 6, offline part).
//
// Stream `progress-<tourId>-<userId>` (user ids are pseudonymous).

/// A traveller who owns the tour started walking it (revision `revision`).
public struct TourStarted: IntegrationEvent {
    public static let eventType = "TourStarted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var revision: Int
    public var startedAt: Date

    public init(tourId: UUID, userId: UUID, guideId: UUID, revision: Int, startedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.startedAt = startedAt
    }
}

/// A stop was reached; `completedAt` is the client's clock (completions recorded offline arrive later, last write wins
/// per stop).
public struct StopCompleted: IntegrationEvent {
    public static let eventType = "StopCompleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var stopId: UUID
    public var completedAt: Date
    /// When the service recorded it.
    public var recordedAt: Date

    public init(tourId: UUID, userId: UUID, stopId: UUID, completedAt: Date, recordedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.stopId = stopId
        self.completedAt = completedAt
        self.recordedAt = recordedAt
    }
}

/// Every stop of the tour is completed.
public struct TourCompleted: IntegrationEvent {
    public static let eventType = "TourCompleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var revision: Int
    public var completedAt: Date

    public init(tourId: UUID, userId: UUID, guideId: UUID, revision: Int, completedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.completedAt = completedAt
    }
}
