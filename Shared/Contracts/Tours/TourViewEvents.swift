import Foundation

// The published language of `tour-management` on `waypoint.tours`: who looks at a tour (issue 6).
//
// Stream `views-<tourId>`: detail views, deduplicated per viewer per tour per hour.

/// Someone opened a tour's detail (once per viewer per tour per hour).
public struct TourViewed: IntegrationEvent {
    public static let eventType = "TourViewed"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var guideId: UUID
    /// Opaque, stable key of the viewer for unique-viewer counts: `user:<uuid>` for signed-in users, `client:<hash>` for
    /// anonymous clients (a keyed hash — no address or agent string leaves the service).
    public var viewer: String
    /// The signed-in viewer, if any.
    public var userId: UUID?
    public var viewedAt: Date

    public init(tourId: UUID, guideId: UUID, viewer: String, userId: UUID?, viewedAt: Date) {
        self.tourId = tourId
        self.guideId = guideId
        self.viewer = viewer
        self.userId = userId
        self.viewedAt = viewedAt
    }
}
