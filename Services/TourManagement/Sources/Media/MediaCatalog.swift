import EventSourcing
import Foundation
import GRDB
import Logging
import PostgresNIO

/// The metadata of stored media: table `media (sha256 PRIMARY KEY, kind, content_type, size, uploaded_at, uploaded_by,
/// referenced_at NULL, unreferenced_since NULL)` in the service's database. The bytes live in the ``MediaStore``'s
/// directory.
///
/// References are one flag, not a count: attaching media calls ``markReferenced(_:at:)`` at once; the garbage collector
/// calls ``releaseDropped(referencedBefore:now:)``, which clears the flag of media that no tour names any more in the
/// `tour_media` read model (a stop removed or changed, a draft deleted or expired). An unreferenced medium is garbage
/// 24 hours after its upload or after it was dropped, whichever is later.
public protocol MediaCatalog: Sendable {
    /// Records an upload. A row already there (an identical upload) keeps its kind, size, first uploader and
    /// reference and takes the later `uploadedAt`. Returns the row as stored.
    func record(_ object: MediaObject) async throws -> MediaCatalogEntry
    /// The row of `sha256`, if any.
    func entry(sha256: String) async throws -> MediaCatalogEntry?
    /// Marks media as referenced by a tour (the first reference time is kept); unknown addresses are skipped.
    /// Returns how many rows exist for the given addresses.
    @discardableResult
    func markReferenced(_ sha256s: [String], at date: Date) async throws -> Int
    /// Marks media as referenced by no tour: they become garbage once their upload is older than the grace period.
    /// Returns how many rows exist for the given addresses.
    @discardableResult
    func markUnreferenced(_ sha256s: [String]) async throws -> Int
    /// Media referenced since before `referencedBefore` that no row of the `tour_media` read model names become
    /// unreferenced as of `now`. (The bound leaves the read model time to see a fresh attachment.) Does nothing when
    /// that read model does not exist (yet). Returns how many were released.
    @discardableResult
    func releaseDropped(referencedBefore: Date, now: Date) async throws -> Int
    /// Unreferenced media uploaded, and dropped, before `date`, oldest first.
    func unreferenced(olderThan date: Date) async throws -> [MediaObject]
    /// Deletes the row of `sha256` if it is still unreferenced and was uploaded and dropped before `date` (it may have
    /// been referenced or re-uploaded since it was listed); true when deleted.
    func removeIfUnreferenced(sha256: String, uploadedBefore date: Date) async throws -> Bool
}

extension MediaCatalog {
    /// ``markReferenced(_:at:)`` now.
    @discardableResult
    public func markReferenced(_ sha256s: [String]) async throws -> Int {
        try await markReferenced(sha256s, at: Date())
    }
}

/// The catalog's rows could not be read back.
public struct MediaCatalogCorruption: Error, CustomStringConvertible {
    public var description: String
}

// MARK: - SQLite

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

// MARK: - PostgreSQL

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
