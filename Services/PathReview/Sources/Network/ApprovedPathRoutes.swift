import Contracts
import EventSourcing
import Foundation
import GRDB
import Hummingbird
import PostgresNIO
import RoadNetwork
import ServiceKit

/// One approved, not retired path as the `approved_paths` read model holds it: the approval, the current condition and
/// the open obstacles (oldest confirmation first).
public struct ApprovedPathRecord: Sendable, Hashable {
    public var approved: PathApproved
    public var condition: String
    public var obstacles: [PathObstacleConfirmed]
}

/// Reads of single paths of the `approved_paths` read model (both stores).
public protocol ApprovedNetworkReads: Sendable {
    /// The path, or `nil` when it is unknown or retired.
    func path(id: UUID) async throws -> ApprovedPathRecord?
    /// The version of the approved network's shape (``StreetOverlayReads/overlayVersion()``).
    func overlayVersion() async throws -> Int64
    /// The shape's version and the read model's checkpoint, read together (one statement): what a bbox page is chosen
    /// and its paths' states are held at (``ApprovedNetworkVersions``).
    func versions() async throws -> ApprovedNetworkVersions
    /// Every approved path's exact bounding box (``ApprovedBoxIndex`` keeps them in memory).
    func boxes() async throws -> [ApprovedBoxIndex.Entry]
    /// The pre-rendered features (``ApprovedFeatureBands``, the band of `zoom`) of `page`, in its order; `nil` for a path
    /// retired since it was chosen.
    func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow?]
    /// The current condition and open obstacles of `page`'s paths, in its order; `nil` for a path retired since it was
    /// chosen (``ApprovedFeatureCache``: what a page whose fragments are held still reads).
    func states(of page: [ApprovedBoxIndex.Entry]) async throws -> [ApprovedPathState?]
}

/// What a `GET /v1/paths?bbox=` page is read at: the approved network's shape version (approvals and retirements move
/// it; ``ApprovedBoxIndex`` and the held fragments follow it) and the `approved_paths` projection's checkpoint (every
/// event it applies moves it, so the conditions and open obstacles held at one checkpoint are the read model's at that
/// position — ``ApprovedFeatureCache``'s states).
public struct ApprovedNetworkVersions: Sendable, Hashable {
    public var shape: Int64
    public var states: Int64

    public init(shape: Int64, states: Int64) {
        self.shape = shape
        self.states = states
    }
}

extension SQLiteApprovedNetworkStore: ApprovedNetworkReads {
    public func versions() async throws -> ApprovedNetworkVersions {
        // One statement for both, prepared once per connection: every bbox page reads it.
        try await database.read { db in
            let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT (SELECT position FROM approved_network_version WHERE id = 1),
                       (SELECT position FROM es_projections WHERE name = ?)
                """), arguments: [SQLiteApprovedNetworkProjection().checkpointName])
            return ApprovedNetworkVersions(shape: row?[0] ?? 0, states: row?[1] ?? 0)
        }
    }

    public func path(id: UUID) async throws -> ApprovedPathRecord? {
        let key = id.uuidString.lowercased()
        let found = try await database.read { db -> (String, String, [String])? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT l.approved, p.condition FROM approved_paths p JOIN approved_path_payloads l ON l.box_id = p.box_id WHERE p.path_id = ?
                """, arguments: [key])
            else { return nil }
            let obstacles = try String.fetchAll(db, sql: """
                SELECT obstacle FROM approved_path_obstacles WHERE path_id = ? ORDER BY last_confirmed_us, obstacle_id
                """, arguments: [key])
            return (row[0], row[1], obstacles)
        }
        return try found.map(ApprovedNetworkFold.record)
    }
}

extension PostgresApprovedNetworkStore: ApprovedNetworkReads {
    public func versions() async throws -> ApprovedNetworkVersions {
        let query: PostgresQuery = """
            SELECT (SELECT position FROM approved_network_version WHERE id = 1),
                   (SELECT position FROM es_projections WHERE name = \(PostgresApprovedNetworkProjection().checkpointName))
            """
        var versions = ApprovedNetworkVersions(shape: 0, states: 0)
        for try await (shape, states) in try await database.client.query(query, logger: database.logger).decode((Int64?, Int64?).self) {
            versions = ApprovedNetworkVersions(shape: shape ?? 0, states: states ?? 0)
        }
        return versions
    }

    public func path(id: UUID) async throws -> ApprovedPathRecord? {
        var found: (String, String)?
        let path: PostgresQuery = """
            SELECT l.approved, p.condition FROM approved_paths p JOIN approved_path_payloads l ON l.path_id = p.path_id WHERE p.path_id = \(id)
            """
        for try await row in try await database.client.query(path, logger: database.logger).decode((String, String).self) { found = row }
        guard let (approved, condition) = found else { return nil }
        var obstacles: [String] = []
        let open: PostgresQuery = """
            SELECT obstacle FROM approved_path_obstacles WHERE path_id = \(id) ORDER BY last_confirmed_us, obstacle_id::text
            """
        for try await (text) in try await database.client.query(open, logger: database.logger).decode(String.self) { obstacles.append(text) }
        return try ApprovedNetworkFold.record((approved, condition, obstacles))
    }
}

extension ApprovedNetworkFold {
    static func record(_ stored: (String, String, [String])) throws -> ApprovedPathRecord {
        ApprovedPathRecord(approved: try EventJSON.decode(PathApproved.self, from: Data(stored.0.utf8)), condition: stored.1,
                           obstacles: try stored.2.map { try EventJSON.decode(PathObstacleConfirmed.self, from: Data($0.utf8)) })
    }
}

/// `GET /v1/paths?bbox=` and `?near=` (``ApprovedPathListing``), `GET /v1/paths/{id}`: the approved network as GeoJSON
/// (public: no token needed).
struct ApprovedPathRoutes: Sendable {
    let reads: any ApprovedNetworkReads
    let lookup: any ApprovedNetworkLookup
    /// The most bytes of pre-rendered features held in memory (``ApprovedFeatureCache``).
    var featureCacheBytes = PathReviewConfiguration.defaultFeatureCacheMegabytes << 20

    /// Mounts the routes.
    func addRoutes(to routes: ServiceRoutes) {
        let paths = routes.group("/v1/paths")
        paths.get(use: ApprovedPathListing(reads: reads, lookup: lookup, boxes: ApprovedBoxIndex(reads: reads),
                                           features: ApprovedFeatureCache(budget: featureCacheBytes)).list)
        paths.get(":id", use: show)
    }

    /// 404 `unknown-path` for an unknown, retired or malformed id.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> ApprovedPathFeature {
        let unknown = Problem.notFound("no such approved path", code: "unknown-path")
        guard let id = UUID(uuidString: context.parameters.get("id") ?? ""), let record = try await reads.path(id: id) else { throw unknown }
        return ApprovedPathFeature(record)
    }
}

/// A GeoJSON `Feature` of one approved path: `LineString` geometry (`[lng, lat]`), status, details, open obstacles.
struct ApprovedPathFeature: ResponseEncodable, Sendable {
    struct Line: Encodable, Sendable { var type = "LineString"; var coordinates: [[Double]] }
    struct Obstacle: Encodable, Sendable {
        var id: String, type: String, latitude: Double, longitude: Double, confidence: Double, sightings: Int, lastConfirmedAt: Date
    }
    struct Properties: Encodable, Sendable {
        var name: String, condition: String, details: PathApprovedDetails, lengthM: Double, approvedAt: Date
        var obstacleCount: Int, obstacles: [Obstacle]
    }
    var type = "Feature"
    var id: String
    var geometry: Line
    var properties: Properties
    var attribution = MapDataAttribution.openStreetMap

    init(_ record: ApprovedPathRecord) {
        let path = record.approved
        let obstacles = record.obstacles.map {
            Obstacle(id: $0.obstacleId.uuidString.lowercased(), type: $0.type, latitude: $0.latitude, longitude: $0.longitude, confidence: $0.confidence,
                     sightings: $0.sightings, lastConfirmedAt: $0.confirmedAt)
        }
        id = path.pathId.uuidString.lowercased()
        geometry = Line(coordinates: path.geometry)
        properties = Properties(name: path.name, condition: record.condition, details: path.details, lengthM: path.lengthM,
                                approvedAt: path.approvedAt, obstacleCount: obstacles.count, obstacles: obstacles)
    }
}
