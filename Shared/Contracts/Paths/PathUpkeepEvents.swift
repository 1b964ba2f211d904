import Foundation

// The rest of `path-review`'s published language on `waypoint.paths` (issue 20, point 7): how the approved network
// stays current after approval. Like `PathApproved`, nothing personal: no reporter, no moderator, no note anyone wrote.
// Streams: a path lives on in its draft's stream `path-draft-<pathId>` after approval (status, obstacles, retirement: one
// Kafka key, so a consumer sees `PathApproved` before anything else of the path); `street-<streetId>` holds a
// moderator's mark on a street. Words: conditions are path-review's (`optimal`, `medium`, `sufficient`,
// `requires-maintenance`); obstacle types are `pothole`, `bump`, `gravel`, `glass`, `roadworks`, `barrier`, `other`.

/// Who set a path's published condition.
public enum PathStatusSource: String, Codable, Sendable, Hashable, CaseIterable {
    /// The documented rule over the cyclists' recent reports.
    case reports
    /// A moderator's override (it holds until a moderator lifts it).
    case moderator
}

/// An approved path's published condition changed.
public struct PathStatusChanged: IntegrationEvent, Hashable {
    public static let eventType = "PathStatusChanged"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var pathId: UUID
    /// The new condition (path-review's words).
    public var condition: String
    public var source: PathStatusSource
    public var changedAt: Date

    /// A condition change.
    public init(pathId: UUID, condition: String, source: PathStatusSource, changedAt: Date) {
        self.pathId = pathId
        self.condition = condition
        self.source = source
        self.changedAt = changedAt
    }
}

/// An obstacle on an approved path is confirmed — first seen, or seen again (its confidence then rises): many sightings
/// of one type within a few metres are one obstacle. `obstacleId` stays the same for the obstacle's whole life.
public struct PathObstacleConfirmed: IntegrationEvent, Hashable {
    public static let eventType = "PathObstacleConfirmed"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var obstacleId: UUID
    public var pathId: UUID
    /// The directed pair of OSM node ids of the path's piece it lies on (`[from, to]`, in the path's travel order).
    public var osmNodes: [Int64]
    /// WGS 84 degrees.
    public var latitude: Double
    public var longitude: Double
    /// One of the obstacle types above.
    public var type: String
    /// 0…1: how sure path-review is that it is there now (grows with sightings, falls with time).
    public var confidence: Double
    /// Sightings counted into it so far (reports and rides).
    public var sightings: Int
    public var confirmedAt: Date

    /// A confirmation with every field given.
    public init(obstacleId: UUID, pathId: UUID, osmNodes: [Int64], latitude: Double, longitude: Double, type: String,
                confidence: Double, sightings: Int, confirmedAt: Date) {
        self.obstacleId = obstacleId
        self.pathId = pathId
        self.osmNodes = osmNodes
        self.latitude = latitude
        self.longitude = longitude
        self.type = type
        self.confidence = confidence
        self.sightings = sightings
        self.confirmedAt = confirmedAt
    }
}

/// Why an obstacle left the network.
public enum PathObstacleResolution: String, Codable, Sendable, Hashable, CaseIterable {
    /// A cyclist or a moderator reported it gone.
    case resolved
    /// Nobody confirmed it for the configured time.
    case faded
    /// Its path was retired.
    case pathRetired = "path-retired"
}

/// An obstacle is gone from an approved path.
public struct PathObstacleResolved: IntegrationEvent, Hashable {
    public static let eventType = "PathObstacleResolved"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var obstacleId: UUID
    public var pathId: UUID
    public var resolution: PathObstacleResolution
    public var resolvedAt: Date

    /// A resolution.
    public init(obstacleId: UUID, pathId: UUID, resolution: PathObstacleResolution, resolvedAt: Date) {
        self.obstacleId = obstacleId
        self.pathId = pathId
        self.resolution = resolution
        self.resolvedAt = resolvedAt
    }
}

/// A moderator retired an approved path: it leaves the approved network (navigation drops its overlay).
public struct PathRetired: IntegrationEvent, Hashable {
    public static let eventType = "PathRetired"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    public var pathId: UUID
    public var retiredAt: Date

    /// A retirement.
    public init(pathId: UUID, retiredAt: Date) {
        self.pathId = pathId
        self.retiredAt = retiredAt
    }
}

/// A moderator marked a street incompatible with bicycles (or lifted the mark): navigation avoids its segments, and
/// path-review refuses drafts on it.
public struct StreetCompatibilityChanged: IntegrationEvent, Hashable {
    public static let eventType = "StreetCompatibilityChanged"
    public static let schemaVersion = 1
    public static let topic = Topic.paths

    /// path-review's street id (the smallest OSM way id of the street).
    public var streetId: Int64
    /// The street's OSM node sequences, one per way piece, in the way's order (both directions are meant).
    public var osmNodes: [[Int64]]
    /// `false`: marked incompatible; `true`: the mark was lifted.
    public var compatible: Bool
    public var changedAt: Date

    /// A change of a street's mark.
    public init(streetId: Int64, osmNodes: [[Int64]], compatible: Bool, changedAt: Date) {
        self.streetId = streetId
        self.osmNodes = osmNodes
        self.compatible = compatible
        self.changedAt = changedAt
    }
}
