import Contracts
import Foundation
import GRDB

/// A bundle file on disk.
public struct BuiltBundle: Sendable, Hashable {
    public var url: URL
    public var sha256: String
    public var sizeBytes: Int64
}

/// Writes a tour's published revision as a self-contained SQLite file for offline use:
///
/// - `meta (key, value)`: `format` (1), `tourId`, `version`, `revision`, `createdAt`;
/// - `tour`: one row with the details (themes and languages as JSON arrays, price in minor units and currency);
/// - `stops`: every stop in order (`position` 0…), text, place and trigger radius;
/// - `stop_media`: the media of each stop in order, with `path` into the media manifest;
/// - `media_manifest (path, sha256, size, kind, content_type)`: every medium once; `path` is `media/<sha256>`, and the
///   file downloads (with HTTP ranges) from `/v1/media/<sha256>`; the app checks each file's SHA-256;
/// - `stop_text`: an FTS5 index over stop names and descriptions (`rowid` = position + 1), `unicode61` with diacritics
///   removed, so the app searches offline.
public enum OfflineBundleBuilder {
    public static let format = 1

    /// Builds the bundle of `tour` as bundle `version` under `directory` (`<tourId>/v<version>.sqlite`, replaced
    /// atomically).
    public static func build(_ tour: PublishedTour, version: Int, createdAt: Date, into directory: URL) throws -> BuiltBundle {
        let folder = directory.appendingPathComponent(tour.tourId.uuidString.lowercased(), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".v\(version)-\(UUID().uuidString).tmp")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            let queue = try DatabaseQueue(path: temporary.path)
            try queue.inDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                try write(tour, version: version, createdAt: createdAt, db)
            }
            try queue.vacuum()
            try queue.close()
        }
        let destination = folder.appendingPathComponent("v\(version).sqlite")
        if FileManager.default.fileExists(atPath: destination.path) {
            _ = try FileManager.default.replaceItemAt(destination, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: destination)
        }
        let (size, digest) = try BundleVerifier.fileDigest(destination)
        return BuiltBundle(url: destination, sha256: digest, sizeBytes: size)
    }

    static func write(_ tour: PublishedTour, version: Int, createdAt: Date, _ db: Database) throws {
        try db.inTransaction {
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE tour (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, guide_id TEXT NOT NULL, title TEXT NOT NULL,
                    description TEXT NOT NULL, destination_id INTEGER NOT NULL, themes TEXT NOT NULL, languages TEXT NOT NULL,
                    price_minor INTEGER NOT NULL, currency TEXT NOT NULL, estimated_minutes INTEGER NOT NULL, difficulty TEXT NOT NULL,
                    mode TEXT NOT NULL, length_metres INTEGER NOT NULL);
                CREATE TABLE stops (id TEXT PRIMARY KEY, position INTEGER NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT NOT NULL,
                    lat REAL NOT NULL, lng REAL NOT NULL, trigger_radius_metres INTEGER NOT NULL);
                CREATE TABLE media_manifest (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER NOT NULL, kind TEXT NOT NULL,
                    content_type TEXT NOT NULL);
                CREATE TABLE stop_media (stop_id TEXT NOT NULL REFERENCES stops (id), position INTEGER NOT NULL,
                    path TEXT NOT NULL REFERENCES media_manifest (path), PRIMARY KEY (stop_id, position));
                CREATE VIRTUAL TABLE stop_text USING fts5(name, description, tokenize = 'unicode61 remove_diacritics 2');
                """)
            let iso = ISO8601DateFormatter()
            for (key, value) in [("format", "\(format)"), ("tourId", tour.tourId.uuidString.lowercased()), ("version", "\(version)"),
                                 ("revision", "\(tour.revision)"), ("createdAt", iso.string(from: createdAt))] {
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
            }
            let details = tour.details
            func json(_ values: [String]) throws -> String { String(decoding: try JSONEncoder().encode(values), as: UTF8.self) }
            try db.execute(sql: "INSERT INTO tour VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: [
                tour.tourId.uuidString.lowercased(), tour.revision, tour.guideId.uuidString.lowercased(), details.title, details.description,
                details.destinationId, try json(details.themes.map(\.rawValue)), try json(details.languages), details.price.amountMinor,
                details.price.currency.code, details.estimatedMinutes, details.difficulty.rawValue, details.mode.rawValue, tour.lengthMetres,
            ])
            for (position, stop) in tour.stops.enumerated() {
                let id = stop.stopId.uuidString.lowercased()
                try db.execute(sql: "INSERT INTO stops VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: [
                    id, position, stop.name, stop.description, stop.location.lat, stop.location.lng, stop.triggerRadiusMetres,
                ])
                try db.execute(sql: "INSERT INTO stop_text (rowid, name, description) VALUES (?, ?, ?)",
                               arguments: [position + 1, stop.name, stop.description])
                for (index, medium) in stop.media.enumerated() {
                    let path = "media/\(medium.sha256.lowercased())"
                    try db.execute(sql: "INSERT OR IGNORE INTO media_manifest VALUES (?, ?, ?, ?, ?)",
                                   arguments: [path, medium.sha256.lowercased(), medium.size, medium.kind, medium.contentType])
                    try db.execute(sql: "INSERT INTO stop_media VALUES (?, ?, ?)", arguments: [id, index, path])
                }
            }
            return .commit
        }
    }
}
