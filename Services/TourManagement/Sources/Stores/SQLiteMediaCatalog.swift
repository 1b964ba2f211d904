import EventSourcing
import Foundation
import GRDB

/// The media catalog in the embedded SQLite database.
public struct SQLiteMediaCatalog: MediaCatalog {
    let database: SQLiteServiceDatabase

    /// The catalog over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    static let columns = "sha256, kind, content_type, size, uploaded_at, uploaded_by, referenced_at"

    static func entry(_ row: Row) throws -> MediaCatalogEntry {
        let kind: String = row["kind"]
        guard let mediaKind = MediaKind(rawValue: kind) else {
            throw MediaCatalogCorruption(description: "media row with unknown kind \(kind)")
        }
        return MediaCatalogEntry(
            object: MediaObject(sha256: row["sha256"], kind: mediaKind, contentType: row["content_type"], size: row["size"],
                                uploadedAt: row["uploaded_at"], uploadedBy: row["uploaded_by"]),
            referencedAt: row["referenced_at"])
    }

    public func record(_ object: MediaObject) async throws -> MediaCatalogEntry {
        try await database.write { db in
            let row = try Row.fetchOne(db, sql: """
                INSERT INTO media (sha256, kind, content_type, size, uploaded_at, uploaded_by) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (sha256) DO UPDATE SET uploaded_at = max(media.uploaded_at, excluded.uploaded_at)
                RETURNING \(Self.columns)
                """, arguments: [object.sha256, object.kind.rawValue, object.contentType, object.size, object.uploadedAt,
                                 object.uploadedBy])
            return try Self.entry(row!)
        }
    }

    public func entry(sha256: String) async throws -> MediaCatalogEntry? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM media WHERE sha256 = ?", arguments: [sha256]).map(Self.entry)
        }
    }

    public func markReferenced(_ sha256s: [String], at date: Date) async throws -> Int {
        try await update(sha256s, sql: """
            UPDATE media SET referenced_at = coalesce(referenced_at, ?), unreferenced_since = NULL WHERE sha256 = ?
            """, date)
    }

    public func markUnreferenced(_ sha256s: [String]) async throws -> Int {
        try await update(sha256s, sql: "UPDATE media SET referenced_at = NULL WHERE sha256 = ?", nil)
    }

    private func update(_ sha256s: [String], sql: String, _ date: Date?) async throws -> Int {
        guard !sha256s.isEmpty else { return 0 }
        return try await database.write { db in
            let statement = try db.makeStatement(sql: sql)
            var found = 0
            for sha256 in Set(sha256s) {
                try statement.execute(arguments: date.map { [$0, sha256] } ?? [sha256])
                found += db.changesCount
            }
            return found
        }
    }

    public func releaseDropped(referencedBefore: Date, now: Date) async throws -> Int {
        try await database.write { db in
            guard try db.tableExists("tour_media_refs") else { return 0 }
            try db.execute(sql: """
                UPDATE media SET referenced_at = NULL, unreferenced_since = ?
                WHERE referenced_at IS NOT NULL AND referenced_at < ?
                    AND NOT EXISTS (SELECT 1 FROM tour_media_refs r WHERE r.sha256 = media.sha256)
                """, arguments: [now, referencedBefore])
            return db.changesCount
        }
    }

    public func unreferenced(olderThan date: Date) async throws -> [MediaObject] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM media WHERE referenced_at IS NULL AND uploaded_at < ?1
                    AND (unreferenced_since IS NULL OR unreferenced_since < ?1) ORDER BY uploaded_at, sha256
                """, arguments: [date]).map { try Self.entry($0).object }
        }
    }

    public func removeIfUnreferenced(sha256: String, uploadedBefore date: Date) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: """
                DELETE FROM media WHERE sha256 = ?1 AND referenced_at IS NULL AND uploaded_at < ?2
                    AND (unreferenced_since IS NULL OR unreferenced_since < ?2)
                """, arguments: [sha256, date])
            return db.changesCount > 0
        }
    }
}
