import Foundation

/// Every approved path's bounding box in memory, in path-id order, keyed on the read model's version
/// (``StreetOverlayReads/overlayVersion()``: approvals and retirements move it): `GET /v1/paths?bbox=` chooses its page
/// here — the first `limit` boxes meeting the asked one, walking in id order, so no sort and no index scan of the
/// thousands of paths a city box meets — and reads only that page's features from the store.
///
/// Each request brings the version it read (``ApprovedNetworkReads/versions()``, one row with the projection's
/// checkpoint); the first request after a change loads all boxes once (concurrent
/// requests wait for that one load; a failed load is retried by the next request). The copy is never older than the
/// version it carries. A path retired between the choice and the read is left out of that page.
public final class ApprovedBoxIndex: Sendable {
    /// One path's box: its id, the store's key of its rows (SQLite's box key; 0 on PostgreSQL) and its exact bounds.
    public struct Entry: Sendable, Hashable {
        public var id: UUID
        public var key: Int64
        public var west: Double, south: Double, east: Double, north: Double

        /// Whether the box meets `box` (edges touching count), as the R*Tree's and PostGIS's `&&` question.
        func meets(_ box: ApprovedNetworkBox) -> Bool {
            east >= box.west && west <= box.east && north >= box.south && south <= box.north
        }
    }

    private let copy: VersionedCopy<[Entry]>

    /// The index over `reads`.
    public init(reads: any ApprovedNetworkReads) {
        copy = VersionedCopy(version: { try await reads.overlayVersion() }, load: {
            try await reads.boxes().map { (ApprovedPathOrder($0.id), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
        })
    }

    /// The first `limit` paths (in id order) whose box meets `box`, chosen at the shape version `version` the caller read
    /// (``ApprovedNetworkReads/versions()``) or a newer one, and the version they were chosen at.
    public func page(_ box: ApprovedNetworkBox, limit: Int, at version: Int64) async throws -> (version: Int64, entries: [Entry]) {
        var page: [Entry] = []
        let (version, entries) = try await copy.current(at: version)
        guard limit > 0 else { return (version, page) }
        for entry in entries where entry.meets(box) {
            page.append(entry)
            if page.count == limit { break }
        }
        return (version, page)
    }
}
