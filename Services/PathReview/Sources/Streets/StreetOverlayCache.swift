import Foundation

/// The approved network's overlay on the catalogue's streets — which of their edges approved paths cover, which
/// streets moderators marked — held in memory and keyed on the read model's ``StreetOverlayReads/overlayVersion()``.
///
/// Street listings and drafts ask about a page of streets on every request; the overlay changes only with approvals,
/// retirements and marks. So a request reads one number (the version, a one-row read) and, while it equals the copy's,
/// answers from memory; the first request after a change loads the whole catalogue's overlay once (every edge's
/// representative node pair probed on the index, every street's mark) and concurrent requests wait for that one load.
/// The version is read before the answers, so a copy is never older than the version it carries; a load that fails is
/// retried by the next request.
public final class StreetOverlayCache: Sendable {
    /// The overlay at one version: covered node pairs (`[min, max]`, of the catalogue's representative pairs) and marked streets.
    public struct Snapshot: Sendable {
        public let version: Int64
        public let covered: Set<[Int64]>
        public let marked: Set<Int64>
    }

    private struct Overlay: Sendable {
        let covered: Set<[Int64]>
        let marked: Set<Int64>
    }

    private let copy: VersionedCopy<Overlay>

    /// The cache of `catalog`'s streets over `reads`.
    public init(catalog: StreetCatalog, reads: any StreetOverlayReads) {
        let streets = catalog.index.streets
        let streetIds = streets.map(\.id)
        let pairs = Array(Set(streets.flatMap { catalog.representativeSegments(of: $0) })).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        copy = VersionedCopy(version: { try await reads.overlayVersion() }, load: {
            Overlay(covered: try await reads.coveredSegments(pairs), marked: try await reads.markedStreets(streetIds))
        })
    }

    /// The overlay as of now (at least as new as the read model's version when asked).
    public func current() async throws -> Snapshot {
        let (version, overlay) = try await copy.current()
        return Snapshot(version: version, covered: overlay.covered, marked: overlay.marked)
    }
}
