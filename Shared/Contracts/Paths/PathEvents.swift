import Foundation

// The published language of `path-review` on `waypoint.paths` (issue 20, point 7): what navigation needs to set its
// cost overlay, and (issue 22) the review queue's comings and goings for analytics — nothing personal: no author, no
// moderator, no name or note anyone wrote. Streams: `path-draft-<id>` (an approved path keeps its draft's id as its path
// id).

/// What a cyclist said of an approved path's kind; `nil`: not said.
public struct PathApprovedDetails: Codable, Sendable, Hashable {
    public var segregatedFromCars: Bool?
    public var pedestriansAllowed: Bool?
    /// OSM `surface` words.
    public var surface: String?
    public var lit: Bool?

    /// Details with every value given or left unsaid.
    public init(segregatedFromCars: Bool? = nil, pedestriansAllowed: Bool? = nil, surface: String? = nil, lit: Bool? = nil) {
        self.segregatedFromCars = segregatedFromCars
        self.pedestriansAllowed = pedestriansAllowed
        self.surface = surface
        self.lit = lit
    }
}

/// A moderator approved a path: it joins the approved network. It lies on `osmNodes` (OSM node ids in travel order,
/// DESIGN's identity of a street piece: consecutive pairs are the directed segments a cost overlay keys on);
/// `geometry` is for display.
public struct PathApproved: IntegrationEvent, Hashable {
    public static let eventType = "PathApproved"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var pathId: UUID
    public var name: String
    public var osmNodes: [Int64]
    /// `[lng, lat]` pairs in degrees (GeoJSON order), in travel order.
    public var geometry: [[Double]]
    /// Metres along the geometry.
    public var lengthM: Double
    /// `optimal`, `medium`, `sufficient` or `requires-maintenance`.
    public var condition: String
    public var details: PathApprovedDetails
    public var approvedAt: Date

    /// A path approval.
    public init(pathId: UUID, name: String, osmNodes: [Int64], geometry: [[Double]], lengthM: Double, condition: String,
                details: PathApprovedDetails, approvedAt: Date) {
        self.pathId = pathId
        self.name = name
        self.osmNodes = osmNodes
        self.geometry = geometry
        self.lengthM = lengthM
        self.condition = condition
        self.details = details
        self.approvedAt = approvedAt
    }
}

/// How a draft left the review queue.
public enum PathReviewOutcome: String, Codable, Sendable, Hashable, CaseIterable {
    /// A moderator approved it (its `PathApproved` follows in the stream).
    case approved
    /// A moderator refused it for good.
    case rejected
    /// A moderator sent it back to its author, who may edit and publish it again (a new `PathReviewOpened`).
    case sentBack = "sent-back"
    /// It left without a decision: its author's account was erased while it waited.
    case withdrawn
}

/// A draft entered the review queue: its author published it (again, after a send-back). Published for the queue's
/// statistics (issue 22): the draft's id and the time only.
public struct PathReviewOpened: IntegrationEvent, Hashable {
    public static let eventType = "PathReviewOpened"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var draftId: UUID
    public var openedAt: Date

    /// An opening of review.
    public init(draftId: UUID, openedAt: Date) {
        self.draftId = draftId
        self.openedAt = openedAt
    }
}

/// A draft left the review queue: a moderator decided, or it was withdrawn. Carries when its review was opened, so the
/// time to a decision is read from this event alone. Published for the queue's statistics (issue 22): no moderator, no
/// note.
public struct PathReviewClosed: IntegrationEvent, Hashable {
    public static let eventType = "PathReviewClosed"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var draftId: UUID
    public var outcome: PathReviewOutcome
    /// The `openedAt` of the review this closes.
    public var openedAt: Date
    public var closedAt: Date

    /// A closing of review.
    public init(draftId: UUID, outcome: PathReviewOutcome, openedAt: Date, closedAt: Date) {
        self.draftId = draftId
        self.outcome = outcome
        self.openedAt = openedAt
        self.closedAt = closedAt
    }
}
