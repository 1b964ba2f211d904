import Contracts
import EventSourcing
import Foundation
import Geo
import GRDB
import PostgresNIO
import ServiceKit

/// ``ApprovedNetworkLookup`` on the embedded SQLite `approved_paths` read model: the R*Tree narrows `near` to the
/// boxes within the radius, then the exact distance to each path's geometry (Shared/Geo `Polyline.projection`) decides and orders.
public struct SQLiteApprovedNetworkStore: ApprovedNetworkLookup {
    let database: SQLiteServiceDatabase

    /// The store over `database` (its tables exist once the projection ran).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func paths(onSegment from: Int64, _ to: Int64) async throws -> [UUID] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT path_id FROM approved_path_segments WHERE a = ? AND b = ? ORDER BY path_id",
                                arguments: [min(from, to), max(from, to)]).compactMap(UUID.init(uuidString:))
        }
    }

    public func paths(nearLatitude latitude: Double, longitude: Double, radiusMetres: Double, limit: Int) async throws -> [UUID] {
        let dLat = radiusMetres / 111_195, dLng = radiusMetres / (111_195 * max(cos(latitude * .pi / 180), 0.01))
        let rows = try await database.read { db in
            try String.fetchAll(db, sql: """
                SELECT p.approved FROM approved_path_boxes b JOIN approved_path_payloads p ON p.box_id = b.box_id
                WHERE b.east >= ? AND b.west <= ? AND b.north >= ? AND b.south <= ?
                """, arguments: [longitude - dLng, longitude + dLng, latitude - dLat, latitude + dLat])
        }
        let point = try Coordinate(latitude: latitude, longitude: longitude)
        let scored = try rows.map { text -> (UUID, Double) in
            let path = try EventJSON.decode(PathApproved.self, from: Data(text.utf8))
            return (path.pathId, try ApprovedNetworkGeometry.distance(from: point, to: path.geometry))
        }
        return scored.filter { $0.1 <= radiusMetres }
            .sorted { ($0.1, $0.0.uuidString) < ($1.1, $1.0.uuidString) }.prefix(max(limit, 0)).map(\.0)
    }

    public func obstacles(lastConfirmedBefore cutoff: Date, limit: Int) async throws -> [ApprovedObstacleRef] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT path_id, obstacle_id, last_confirmed_us FROM approved_path_obstacles WHERE last_confirmed_us < ?
                ORDER BY last_confirmed_us, obstacle_id LIMIT ?
                """, arguments: [cutoff.microsecondsSince1970, max(limit, 0)]).compactMap { row in
                guard let path = UUID(uuidString: row[0]), let obstacle = UUID(uuidString: row[1]) else { return nil }
                return ApprovedObstacleRef(pathId: path, obstacleId: obstacle, lastConfirmedAt: Date(microsecondsSince1970: row[2]))
            }
        }
    }
}

/// The exact distance from a point to a path's `[lng, lat]` geometry, in metres.
enum ApprovedNetworkGeometry {
    static func distance(from point: Coordinate, to geometry: [[Double]]) throws -> Double {
        guard geometry.allSatisfy({ $0.count == 2 }) else { return .infinity }
        let points = try geometry.map { try Coordinate(latitude: $0[1], longitude: $0[0]) }
        return Polyline(points).projection(of: point)?.distance ?? .infinity
    }
}

/// ``ApprovedNetworkLookup`` on the PostgreSQL `approved_paths` read model (PostGIS `ST_DWithin` on the GiST index).
public struct PostgresApprovedNetworkStore: ApprovedNetworkLookup {
    let database: PostgresServiceDatabase

    /// The store over `database` (its tables exist once the projection ran).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func paths(onSegment from: Int64, _ to: Int64) async throws -> [UUID] {
        let query: PostgresQuery = "SELECT path_id FROM approved_path_segments WHERE a = \(min(from, to)) AND b = \(max(from, to))"
        var ids: [UUID] = []
        for try await (id) in try await database.client.query(query, logger: database.logger).decode(UUID.self) { ids.append(id) }
        return ids.sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() }
    }

    public func paths(nearLatitude latitude: Double, longitude: Double, radiusMetres: Double, limit: Int) async throws -> [UUID] {
        let query: PostgresQuery = """
            SELECT path_id FROM (SELECT path_id, ST_Distance(geog, ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography, false) AS d
                FROM approved_path_payloads WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography, \(radiusMetres), false)) n
            ORDER BY d, path_id::text LIMIT \(max(limit, 0))
            """
        var ids: [UUID] = []
        for try await (id) in try await database.client.query(query, logger: database.logger).decode(UUID.self) { ids.append(id) }
        return ids
    }

    public func obstacles(lastConfirmedBefore cutoff: Date, limit: Int) async throws -> [ApprovedObstacleRef] {
        let query: PostgresQuery = """
            SELECT path_id, obstacle_id, last_confirmed_us FROM approved_path_obstacles WHERE last_confirmed_us < \(cutoff.microsecondsSince1970)
            ORDER BY last_confirmed_us, obstacle_id::text LIMIT \(max(limit, 0))
            """
        var refs: [ApprovedObstacleRef] = []
        for try await (path, obstacle, at) in try await database.client.query(query, logger: database.logger).decode((UUID, UUID, Int64).self) {
            refs.append(ApprovedObstacleRef(pathId: path, obstacleId: obstacle, lastConfirmedAt: Date(microsecondsSince1970: at)))
        }
        return refs
    }
}
