import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// An event of path-review's own log that changes the approved network: the approval and the fixed upkeep events.
public enum ApprovedNetworkEvent: Sendable {
    case approved(PathApproved)
    case statusChanged(PathStatusChanged)
    case obstacleConfirmed(PathObstacleConfirmed)
    case obstacleResolved(PathObstacleResolved)
    case retired(PathRetired)
    /// A moderator marked a street incompatible, or lifted the mark.
    case streetChanged(StreetCompatibilityChanged)

    /// Whether it changes what streets the approved network covers or marks (``StreetOverlayReads/overlayVersion()``):
    /// an approval, a retirement, a street's mark — not a path's condition or its obstacles.
    public var changesStreetOverlay: Bool {
        switch self {
        case .approved, .retired, .streetChanged: true
        case .statusChanged, .obstacleConfirmed, .obstacleResolved: false
        }
    }

    /// The event in `envelope`, or `nil` for a type the `approved_paths` read model does not fold.
    public static func decode(_ envelope: EventEnvelope) throws -> ApprovedNetworkEvent? {
        try types.decode(envelope)
    }

    private static let types = EventTypeMap<ApprovedNetworkEvent>()
        .registering(PathApproved.self) { .approved($0) }
        .registering(PathStatusChanged.self) { .statusChanged($0) }
        .registering(PathObstacleConfirmed.self) { .obstacleConfirmed($0) }
        .registering(PathObstacleResolved.self) { .obstacleResolved($0) }
        .registering(PathRetired.self) { .retired($0) }
        .registering(StreetCompatibilityChanged.self) { .streetChanged($0) }
}

/// A path id's 128 bits as two unsigned big-endian halves: ordered as the id's lowercase text is (what listings sort
/// by), compared without building strings.
struct ApprovedPathOrder: Comparable, Sendable {
    let high: UInt64, low: UInt64

    init(_ id: UUID) {
        let b = id.uuid
        high = UInt64(b.0) << 56 | UInt64(b.1) << 48 | UInt64(b.2) << 40 | UInt64(b.3) << 32
            | UInt64(b.4) << 24 | UInt64(b.5) << 16 | UInt64(b.6) << 8 | UInt64(b.7)
        low = UInt64(b.8) << 56 | UInt64(b.9) << 48 | UInt64(b.10) << 40 | UInt64(b.11) << 32
            | UInt64(b.12) << 24 | UInt64(b.13) << 16 | UInt64(b.14) << 8 | UInt64(b.15)
    }

    static func < (a: Self, b: Self) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// Shared pieces of both backends' fold: the box of a geometry and the node pairs of a path (smaller id first).
enum ApprovedNetworkFold {
    /// `(west, south, east, north)` of `[lng, lat]` pairs.
    static func box(_ geometry: [[Double]]) -> (west: Double, south: Double, east: Double, north: Double) {
        let lngs = geometry.compactMap(\.first), lats = geometry.compactMap { $0.count > 1 ? $0[1] : nil }
        return (lngs.min() ?? 0, lats.min() ?? 0, lngs.max() ?? 0, lats.max() ?? 0)
    }

    /// Each consecutive node pair once, ordered `(min, max)` so either travel direction matches.
    static func segments(_ nodes: [Int64]) -> Set<[Int64]> {
        Set(zip(nodes, nodes.dropFirst()).map { [min($0, $1), max($0, $1)] })
    }

    /// The geometry as PostGIS WKT (`LINESTRING(lng lat, …)`); a one-point path repeats its point.
    static func wkt(_ geometry: [[Double]]) -> String {
        let points = geometry.count == 1 ? geometry + geometry : geometry
        return "LINESTRING(" + points.map { "\($0[0]) \($0[1])" }.joined(separator: ", ") + ")"
    }

    static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try EventJSON.encode(value), as: UTF8.self)
    }
}

/// The `approved_paths` read model on SQLite: approved paths (retired ones leave it), an R*Tree of their boxes, their
/// node pairs, their open obstacles, and the streets moderators marked incompatible (`street_marks`, a row while the
/// mark holds) — the overlay on the road network that drafts and street listings read.
public struct SQLiteApprovedNetworkProjection: SQLiteProjection {
    public let name = "approved_paths"
    public let tables = ["approved_paths", "approved_path_payloads", "approved_path_boxes", "approved_path_segments", "approved_path_obstacles",
                         "street_marks", "approved_network_version"] + ApprovedFeatureBands.tables
    public var schemaVersion: Int { 5 }

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        // `approved_paths` is narrow (a listing reads it for every path of its page); the approval's payload is a row of
        // its own table under the same key.
        try db.execute(sql: """
            CREATE TABLE \(t("approved_paths")) (box_id INTEGER PRIMARY KEY, path_id TEXT NOT NULL UNIQUE, condition TEXT NOT NULL,
                obstacles INTEGER NOT NULL DEFAULT 0, west REAL NOT NULL, south REAL NOT NULL, east REAL NOT NULL, north REAL NOT NULL);
            CREATE TABLE \(t("approved_path_payloads")) (box_id INTEGER PRIMARY KEY, approved TEXT NOT NULL);
            CREATE VIRTUAL TABLE \(t("approved_path_boxes")) USING rtree(box_id, west, east, south, north);
            CREATE TABLE \(t("approved_path_segments")) (a INTEGER NOT NULL, b INTEGER NOT NULL, path_id TEXT NOT NULL,
                PRIMARY KEY (a, b, path_id));
            CREATE INDEX \(t.index("approved_path_segments_path")) ON \(t("approved_path_segments")) (path_id);
            CREATE TABLE \(t("approved_path_obstacles")) (obstacle_id TEXT PRIMARY KEY, path_id TEXT NOT NULL,
                last_confirmed_us INTEGER NOT NULL, obstacle TEXT NOT NULL);
            CREATE INDEX \(t.index("approved_path_obstacles_path")) ON \(t("approved_path_obstacles")) (path_id);
            CREATE INDEX \(t.index("approved_path_obstacles_age")) ON \(t("approved_path_obstacles")) (last_confirmed_us, obstacle_id);
            CREATE TABLE \(t("street_marks")) (street_id INTEGER PRIMARY KEY, marked_us INTEGER NOT NULL);
            CREATE TABLE \(t("approved_network_version")) (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
            INSERT INTO \(t("approved_network_version")) (id, position) VALUES (1, 0);
            """)
        for table in ApprovedFeatureBands.tables {
            try db.execute(sql: "CREATE TABLE \(t(table)) (box_id INTEGER PRIMARY KEY, fragment TEXT NOT NULL)")
        }
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try ApprovedNetworkEvent.decode(event) else { return }
        if decoded.changesStreetOverlay {
            try db.execute(sql: "UPDATE \(t("approved_network_version")) SET position = ? WHERE id = 1", arguments: [event.position])
        }
        switch decoded {
        case .approved(let e): try approve(e, db, t)
        case .statusChanged(let e):
            try db.execute(sql: "UPDATE \(t("approved_paths")) SET condition = ? WHERE path_id = ?", arguments: [e.condition, Self.id(e.pathId)])
        case .obstacleConfirmed(let e):
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM \(t("approved_paths")) WHERE path_id = ?", arguments: [Self.id(e.pathId)]) != nil
            else { return }
            try db.execute(sql: """
                INSERT OR REPLACE INTO \(t("approved_path_obstacles")) (obstacle_id, path_id, last_confirmed_us, obstacle) VALUES (?, ?, ?, ?)
                """, arguments: [Self.id(e.obstacleId), Self.id(e.pathId), e.confirmedAt.microsecondsSince1970, try ApprovedNetworkFold.text(e)])
            try count(Self.id(e.pathId), db, t)
        case .obstacleResolved(let e):
            try db.execute(sql: "DELETE FROM \(t("approved_path_obstacles")) WHERE obstacle_id = ?", arguments: [Self.id(e.obstacleId)])
            try count(Self.id(e.pathId), db, t)
        case .retired(let e): try remove(Self.id(e.pathId), db, t)
        case .streetChanged(let e):
            if e.compatible {
                try db.execute(sql: "DELETE FROM \(t("street_marks")) WHERE street_id = ?", arguments: [e.streetId])
            } else {
                try db.execute(sql: "INSERT OR REPLACE INTO \(t("street_marks")) (street_id, marked_us) VALUES (?, ?)",
                               arguments: [e.streetId, e.changedAt.microsecondsSince1970])
            }
        }
    }

    static func id(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// The path's row and box key: its id's first 64 bits, ordered as the id is (``ApprovedPathOrder``, shifted into
    /// Int64's range), so rows are stored in path-id order.
    static func boxKey(_ id: UUID) -> Int64 {
        Int64(bitPattern: ApprovedPathOrder(id).high ^ (1 << 63))
    }

    private func approve(_ e: PathApproved, _ db: Database, _ t: ProjectionTables) throws {
        let id = Self.id(e.pathId)
        try remove(id, db, t)
        let features = try ApprovedFeatureBands.fragments(e)
        var boxId = Self.boxKey(e.pathId)
        while try Bool.fetchOne(db, sql: "SELECT 1 FROM \(t("approved_paths")) WHERE box_id = ?", arguments: [boxId]) != nil {
            boxId &+= 1  // two ids alike in their first 64 bits (about 1 in 10¹² among a million paths): the later one follows
        }
        let box = ApprovedNetworkFold.box(e.geometry)
        // The exact box (the R*Tree keeps 32-bit bounds): what `ApprovedBoxIndex` loads.
        try db.execute(sql: "INSERT INTO \(t("approved_paths")) (box_id, path_id, condition, west, south, east, north) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       arguments: [boxId, id, e.condition, box.west, box.south, box.east, box.north])
        try db.execute(sql: "INSERT INTO \(t("approved_path_payloads")) (box_id, approved) VALUES (?, ?)",
                       arguments: [boxId, try ApprovedNetworkFold.text(e)])
        try db.execute(sql: "INSERT INTO \(t("approved_path_boxes")) (box_id, west, east, south, north) VALUES (?, ?, ?, ?, ?)",
                       arguments: [boxId, box.west, box.east, box.south, box.north])
        for (table, fragment) in zip(ApprovedFeatureBands.tables, features) {
            try db.execute(sql: "INSERT INTO \(t(table)) (box_id, fragment) VALUES (?, ?)", arguments: [boxId, fragment])
        }
        for pair in ApprovedNetworkFold.segments(e.osmNodes) {
            try db.execute(sql: "INSERT INTO \(t("approved_path_segments")) (a, b, path_id) VALUES (?, ?, ?)", arguments: [pair[0], pair[1], id])
        }
    }

    /// Keeps `approved_paths.obstacles` equal to the path's open obstacles (what a listing shows without counting).
    private func count(_ id: String, _ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            UPDATE \(t("approved_paths")) SET obstacles = (SELECT COUNT(*) FROM \(t("approved_path_obstacles")) WHERE path_id = ?) WHERE path_id = ?
            """, arguments: [id, id])
    }

    private func remove(_ id: String, _ db: Database, _ t: ProjectionTables) throws {
        if let boxId = try Int64.fetchOne(db, sql: "SELECT box_id FROM \(t("approved_paths")) WHERE path_id = ?", arguments: [id]) {
            for table in ["approved_path_boxes", "approved_path_payloads"] + ApprovedFeatureBands.tables {
                try db.execute(sql: "DELETE FROM \(t(table)) WHERE box_id = ?", arguments: [boxId])
            }
        }
        for table in ["approved_paths", "approved_path_segments", "approved_path_obstacles"] {
            try db.execute(sql: "DELETE FROM \(t(table)) WHERE path_id = ?", arguments: [id])
        }
    }
}

/// The `approved_paths` read model on PostgreSQL: the same tables, the geometry as PostGIS `geography(LineString)`
/// with a GiST index.
public struct PostgresApprovedNetworkProjection: PostgresProjection {
    public let name = "approved_paths"
    public let tables = ["approved_paths", "approved_path_payloads", "approved_path_boxes", "approved_path_segments", "approved_path_obstacles",
                         "street_marks", "approved_network_version"] + ApprovedFeatureBands.tables
    public var schemaVersion: Int { 5 }

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            "CREATE EXTENSION IF NOT EXISTS postgis",
            """
            CREATE TABLE \(t("approved_paths")) (path_id uuid PRIMARY KEY, condition text NOT NULL, obstacles integer NOT NULL DEFAULT 0)
            """,
            // The payload and the line in a table of their own, as on SQLite: `approved_paths` stays narrow for listings.
            """
            CREATE TABLE \(t("approved_path_payloads")) (path_id uuid PRIMARY KEY, approved text NOT NULL,
                geog geography(LineString, 4326) NOT NULL)
            """,
            "CREATE INDEX \(t.index("approved_path_payloads_geog")) ON \(t("approved_path_payloads")) USING gist (geog)",
            // Each path's exact box, which `ApprovedBoxIndex` loads to choose a `GET /v1/paths?bbox=` page in memory.
            "CREATE TABLE \(t("approved_path_boxes")) (path_id uuid PRIMARY KEY, box geometry NOT NULL)",
            "CREATE TABLE \(t("approved_path_segments")) (a bigint NOT NULL, b bigint NOT NULL, path_id uuid NOT NULL, PRIMARY KEY (a, b, path_id))",
            "CREATE INDEX \(t.index("approved_path_segments_path")) ON \(t("approved_path_segments")) (path_id)",
            """
            CREATE TABLE \(t("approved_path_obstacles")) (obstacle_id uuid PRIMARY KEY, path_id uuid NOT NULL,
                last_confirmed_us bigint NOT NULL, obstacle text NOT NULL)
            """,
            "CREATE INDEX \(t.index("approved_path_obstacles_path")) ON \(t("approved_path_obstacles")) (path_id)",
            "CREATE INDEX \(t.index("approved_path_obstacles_age")) ON \(t("approved_path_obstacles")) (last_confirmed_us, obstacle_id)",
            "CREATE TABLE \(t("street_marks")) (street_id bigint PRIMARY KEY, marked_us bigint NOT NULL)",
            "CREATE TABLE \(t("approved_network_version")) (id integer PRIMARY KEY CHECK (id = 1), position bigint NOT NULL)",
            "INSERT INTO \(t("approved_network_version")) (id, position) VALUES (1, 0)",
        ] + ApprovedFeatureBands.tables.flatMap { table in [
            "CREATE TABLE \(t(table)) (path_id uuid PRIMARY KEY, fragment text NOT NULL)",
            // Read on every listing, written once: kept uncompressed.
            "ALTER TABLE \(t(table)) ALTER COLUMN fragment SET STORAGE EXTERNAL",
        ] } {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try ApprovedNetworkEvent.decode(event) else { return }
        if decoded.changesStreetOverlay {
            try await connection.query("UPDATE \(unescaped: t("approved_network_version")) SET position = \(event.position) WHERE id = 1",
                                       logger: connection.logger)
        }
        let paths = t("approved_paths"), obstacles = t("approved_path_obstacles")
        switch decoded {
        case .approved(let e): try await approve(e, connection, t)
        case .statusChanged(let e):
            try await connection.query("UPDATE \(unescaped: paths) SET condition = \(e.condition) WHERE path_id = \(e.pathId)",
                                       logger: connection.logger)
        case .obstacleConfirmed(let e):
            let text = try ApprovedNetworkFold.text(e), at = e.confirmedAt.microsecondsSince1970
            try await connection.query("""
                INSERT INTO \(unescaped: obstacles) (obstacle_id, path_id, last_confirmed_us, obstacle)
                SELECT \(e.obstacleId), \(e.pathId), \(at), \(text) WHERE EXISTS (SELECT 1 FROM \(unescaped: paths) WHERE path_id = \(e.pathId))
                ON CONFLICT (obstacle_id) DO UPDATE SET path_id = excluded.path_id, last_confirmed_us = excluded.last_confirmed_us,
                    obstacle = excluded.obstacle
                """, logger: connection.logger)
            try await count(e.pathId, connection, t)
        case .obstacleResolved(let e):
            try await connection.query("DELETE FROM \(unescaped: obstacles) WHERE obstacle_id = \(e.obstacleId)", logger: connection.logger)
            try await count(e.pathId, connection, t)
        case .retired(let e): try await remove(e.pathId, connection, t)
        case .streetChanged(let e):
            let marks = t("street_marks")
            if e.compatible {
                try await connection.query("DELETE FROM \(unescaped: marks) WHERE street_id = \(e.streetId)", logger: connection.logger)
            } else {
                let at = e.changedAt.microsecondsSince1970
                try await connection.query("""
                    INSERT INTO \(unescaped: marks) (street_id, marked_us) VALUES (\(e.streetId), \(at))
                    ON CONFLICT (street_id) DO UPDATE SET marked_us = excluded.marked_us
                    """, logger: connection.logger)
            }
        }
    }

    private func approve(_ e: PathApproved, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await remove(e.pathId, connection, t)
        let text = try ApprovedNetworkFold.text(e), wkt = ApprovedNetworkFold.wkt(e.geometry)
        let features = try ApprovedFeatureBands.fragments(e)
        try await connection.query("INSERT INTO \(unescaped: t("approved_paths")) (path_id, condition) VALUES (\(e.pathId), \(e.condition))",
                                   logger: connection.logger)
        try await connection.query("""
            INSERT INTO \(unescaped: t("approved_path_payloads")) (path_id, approved, geog)
            VALUES (\(e.pathId), \(text), ST_GeogFromText('SRID=4326;' || \(wkt)))
            """, logger: connection.logger)
        let box = ApprovedNetworkFold.box(e.geometry)
        try await connection.query("""
            INSERT INTO \(unescaped: t("approved_path_boxes")) (path_id, box)
            VALUES (\(e.pathId), ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326))
            """, logger: connection.logger)
        for (table, fragment) in zip(ApprovedFeatureBands.tables, features) {
            try await connection.query("INSERT INTO \(unescaped: t(table)) (path_id, fragment) VALUES (\(e.pathId), \(fragment))",
                                       logger: connection.logger)
        }
        // One statement for every node pair (a path has dozens): one round trip instead of one per pair.
        let pairs = ApprovedNetworkFold.segments(e.osmNodes).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        guard !pairs.isEmpty else { return }
        let firsts = pairs.map { $0[0] }, seconds = pairs.map { $0[1] }
        try await connection.query("""
            INSERT INTO \(unescaped: t("approved_path_segments")) (a, b, path_id)
            SELECT a, b, \(e.pathId) FROM unnest(\(firsts)::bigint[], \(seconds)::bigint[]) AS q(a, b)
            """, logger: connection.logger)
    }

    /// Keeps `approved_paths.obstacles` equal to the path's open obstacles.
    private func count(_ id: UUID, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query("""
            UPDATE \(unescaped: t("approved_paths")) SET obstacles = (SELECT count(*) FROM \(unescaped: t("approved_path_obstacles")) WHERE path_id = \(id))
            WHERE path_id = \(id)
            """, logger: connection.logger)
    }

    private func remove(_ id: UUID, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for table in ["approved_paths", "approved_path_payloads", "approved_path_boxes", "approved_path_segments", "approved_path_obstacles"]
            + ApprovedFeatureBands.tables {
            try await connection.query("DELETE FROM \(unescaped: t(table)) WHERE path_id = \(id)", logger: connection.logger)
        }
    }
}
