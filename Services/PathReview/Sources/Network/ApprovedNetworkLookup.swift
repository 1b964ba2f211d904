import Foundation

/// An open obstacle of an approved path, as the approved-network read model knows it.
public struct ApprovedObstacleRef: Sendable, Hashable {
    public var pathId: UUID
    public var obstacleId: UUID
    /// When it was last confirmed (`PathObstacleConfirmed.confirmedAt`).
    public var lastConfirmedAt: Date

    /// A reference with every field given.
    public init(pathId: UUID, obstacleId: UUID, lastConfirmedAt: Date) {
        self.pathId = pathId
        self.obstacleId = obstacleId
        self.lastConfirmedAt = lastConfirmedAt
    }
}

/// What path-review's upkeep (reports, ride sightings, fading) asks of the approved-network read model: which
/// approved, not retired paths a sighting belongs to, and which obstacles have gone unconfirmed too long. Implemented
/// by the read model's store on both backends (one conformance suite).
public protocol ApprovedNetworkLookup: Sendable {
    /// Approved, not retired paths whose OSM node sequence holds the segment `from`–`to` (either direction).
    func paths(onSegment from: Int64, _ to: Int64) async throws -> [UUID]
    /// Approved, not retired paths passing within `radiusMetres` of the point (WGS 84 degrees), nearest first, at most
    /// `limit`.
    func paths(nearLatitude latitude: Double, longitude: Double, radiusMetres: Double, limit: Int) async throws -> [UUID]
    /// Open obstacles last confirmed before `cutoff`, oldest first, at most `limit`: what the fading sweep resolves.
    func obstacles(lastConfirmedBefore cutoff: Date, limit: Int) async throws -> [ApprovedObstacleRef]
}
