import Foundation

// The published language of `path-review` on `waypoint.paths` (issue 20, point 7): what navigation needs to set its
// cost overlay, nothing personal — no author, no moderator. Streams: `path-draft-<id>` (an approved path keeps its
// draft's id as its path id).

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
