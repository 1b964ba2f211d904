import EventSourcing
import Foundation
import PostgresNIO

/// The media catalog in the service's PostgreSQL database.
public struct PostgresMediaCatalog: MediaCatalog {
    let database: PostgresServiceDatabase

    /// The catalog over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    typealias Columns = (String, String, String, Int64, Date, String, Date?)

    static func entry(_ columns: Columns) throws -> MediaCatalogEntry {
        let (sha256, kind, contentType, size, uploadedAt, uploadedBy, referencedAt) = columns
        guard let mediaKind = MediaKind(rawValue: kind) else {
            throw MediaCatalogCorruption(description: "media row with unknown kind \(kind)")
        }
        return MediaCatalogEntry(
            object: MediaObject(sha256: sha256, kind: mediaKind, contentType: contentType, size: Int(size),
                                uploadedAt: uploadedAt, uploadedBy: uploadedBy),
            referencedAt: referencedAt)
    }

    private func entries(_ query: PostgresQuery) async throws -> [MediaCatalogEntry] {
        var entries: [MediaCatalogEntry] = []
        let rows = try await database.client.query(query, logger: database.logger)
        for try await columns in rows.decode(Columns.self) {
            entries.append(try Self.entry(columns))
        }
        return entries
    }

    private func count(_ query: PostgresQuery) async throws -> Int {
        var count = 0
        for try await _ in try await database.client.query(query, logger: database.logger).decode(String.self) { count += 1 }
        return count
    }

    public func record(_ object: MediaObject) async throws -> MediaCatalogEntry {
        let size = Int64(object.size)
        let rows = try await entries("""
            INSERT INTO media (sha256, kind, content_type, size, uploaded_at, uploaded_by)
            VALUES (\(object.sha256), \(object.kind.rawValue), \(object.contentType), \(size), \(object.uploadedAt), \(object.uploadedBy))
            ON CONFLICT (sha256) DO UPDATE SET uploaded_at = greatest(media.uploaded_at, excluded.uploaded_at)
            RETURNING sha256, kind, content_type, size, uploaded_at, uploaded_by, referenced_at
            """)
        return rows[0]
    }

    public func entry(sha256: String) async throws -> MediaCatalogEntry? {
        try await entries("""
            SELECT sha256, kind, content_type, size, uploaded_at, uploaded_by, referenced_at FROM media WHERE sha256 = \(sha256)
            """).first
    }

    public func markReferenced(_ sha256s: [String], at date: Date) async throws -> Int {
        guard !sha256s.isEmpty else { return 0 }
        return try await count("""
            UPDATE media SET referenced_at = coalesce(referenced_at, \(date)), unreferenced_since = NULL
            WHERE sha256 = ANY(\(sha256s)::text[]) RETURNING sha256
            """)
    }

    public func markUnreferenced(_ sha256s: [String]) async throws -> Int {
        guard !sha256s.isEmpty else { return 0 }
        return try await count("""
            UPDATE media SET referenced_at = NULL WHERE sha256 = ANY(\(sha256s)::text[]) RETURNING sha256
            """)
    }

    public func releaseDropped(referencedBefore: Date, now: Date) async throws -> Int {
        guard try await database.tableExists("tour_media_refs") else { return 0 }
        return try await count("""
            UPDATE media SET referenced_at = NULL, unreferenced_since = \(now)
            WHERE referenced_at IS NOT NULL AND referenced_at < \(referencedBefore)
                AND NOT EXISTS (SELECT 1 FROM tour_media_refs r WHERE r.sha256 = media.sha256)
            RETURNING sha256
            """)
    }

    public func unreferenced(olderThan date: Date) async throws -> [MediaObject] {
        try await entries("""
            SELECT sha256, kind, content_type, size, uploaded_at, uploaded_by, referenced_at FROM media
            WHERE referenced_at IS NULL AND uploaded_at < \(date) AND (unreferenced_since IS NULL OR unreferenced_since < \(date))
            ORDER BY uploaded_at, sha256
            """).map(\.object)
    }

    public func removeIfUnreferenced(sha256: String, uploadedBefore date: Date) async throws -> Bool {
        try await count("""
            DELETE FROM media WHERE sha256 = \(sha256) AND referenced_at IS NULL AND uploaded_at < \(date)
                AND (unreferenced_since IS NULL OR unreferenced_since < \(date))
            RETURNING sha256
            """) > 0
    }
}
