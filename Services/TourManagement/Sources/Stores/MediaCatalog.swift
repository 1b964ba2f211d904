import Foundation

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
