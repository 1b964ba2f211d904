import Foundation

/// Every approved path's bounding box in memory, in path-id order, keyed on the read model's version
/// (``StreetOverlayReads/overlayVersion()``: approvals and retirements move it): `GET /v1/paths?bbox=` chooses its page
/// here — the first `limit` boxes meeting the asked one, walking in id order, so no sort and no index scan of the
/// thousands of paths a city box meets — and reads only that page's features from the store.
///
/// Each request reads the version (one row); the first request after a change loads all boxes once (concurrent
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

        /// The id's 128 bits as two unsigned halves: their order is the lowercase text's.
        var order: (UInt64, UInt64) {
            let b = id.uuid
            let high = [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = [b.8, b.9, b.10, b.11, b.12, b.13, b.14, b.15].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return (high, low)
        }
    }

    let reads: any ApprovedNetworkReads
    private let copy: VersionedCopy<[Entry]>

    /// The index over `reads`.
    public init(reads: any ApprovedNetworkReads) {
        self.reads = reads
        copy = VersionedCopy(version: { try await reads.overlayVersion() },
                             load: { try await reads.boxes().sorted { $0.order < $1.order } })
    }

    /// The first `limit` paths (in id order) whose box meets `box`.
    public func page(_ box: ApprovedNetworkBox, limit: Int) async throws -> [Entry] {
        var page: [Entry] = []
        guard limit > 0 else { return page }
        for entry in try await copy.current().value where entry.meets(box) {
            page.append(entry)
            if page.count == limit { break }
        }
        return page
    }

    /// Every box as of now, in id order, with the version it was loaded at.
    public func current() async throws -> (version: Int64, entries: [Entry]) {
        let (version, entries) = try await copy.current()
        return (version, entries)
    }
}
