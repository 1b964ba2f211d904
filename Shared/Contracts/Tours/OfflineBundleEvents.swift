import Foundation

// The published language of `tour-management` on `waypoint.tours`: offline bundles (issue 6, offline part).
//
// Stream `bundle-<tourId>`: signed offline bundles of the tour's published revisions.

/// A signed offline bundle of a published revision is available.
public struct BundlePublished: IntegrationEvent {
    public static let eventType = "BundlePublished"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var revision: Int
    /// 1, 2, … per tour: a new revision makes a new bundle version.
    public var version: Int
    /// SHA-256 of the bundle file, hex.
    public var sha256: String
    public var sizeBytes: Int64
    public var createdAt: Date
    public var expiresAt: Date

    public init(tourId: UUID, revision: Int, version: Int, sha256: String, sizeBytes: Int64, createdAt: Date, expiresAt: Date) {
        self.tourId = tourId
        self.revision = revision
        self.version = version
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
