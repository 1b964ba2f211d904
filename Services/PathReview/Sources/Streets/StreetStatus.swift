import Foundation
import RoadNetwork

/// A street's whole compatibility: the catalogue's (the profile) with what the approved network says now — covered by
/// approved paths (``coveredShare`` of its length; an edge counts when its middle segment is on a path), marked
/// incompatible by a moderator (``StreetOverlayReads`` on the `approved_paths` read model, through the in-memory
/// ``StreetOverlayCache``).
public struct StreetStatus: Sendable {
    let catalog: StreetCatalog
    let overlay: any StreetOverlayReads
    let cache: StreetOverlayCache

    /// The share of a street's length approved paths must run along for it to be covered. Not all of it: a street is
    /// a named chain that may branch (a fork, a short spur to a square), and a path drawn along it end to end leaves
    /// such side pieces out.
    public static let coveredShare = 0.8

    /// The status over `catalog` and the read model's `overlay`.
    public init(catalog: StreetCatalog, overlay: any StreetOverlayReads) {
        self.catalog = catalog
        self.overlay = overlay
        cache = StreetOverlayCache(catalog: catalog, reads: overlay)
    }

    /// `entries` with every reason that applies now, in ``StreetCompatibility/Reason``'s order.
    public func resolve(_ entries: [StreetCatalog.Entry]) async throws -> [StreetCatalog.Entry] {
        guard !entries.isEmpty else { return [] }
        let overlay = try await cache.current()
        let (marked, covered) = (overlay.marked, overlay.covered)
        let segments = entries.map { catalog.representativeSegments(of: $0.street) }
        return zip(entries, segments).map { entry, pairs in
            var resolved = entry
            var reasons = entry.compatibility.reasons.filter { $0 == .pushOnly }
            if coveredShare(of: entry.street, pairs, covered) >= Self.coveredShare { reasons.append(.coveredByPath) }
            if marked.contains(entry.street.id) { reasons.append(.markedIncompatible) }
            resolved.compatibility = StreetCompatibility(reasons: reasons)
            return resolved
        }
    }

    /// The share of `street`'s length whose edges (by their representative `pairs`) lie on approved paths.
    func coveredShare(of street: StreetIndex.Street, _ pairs: [[Int64]], _ covered: Set<[Int64]>) -> Double {
        let lengths = catalog.index.graph.edgeLengths
        let total = street.edges.reduce(0.0) { $0 + lengths[$1] }
        guard total > 0 else { return 0 }
        return zip(street.edges, pairs).reduce(0.0) { $0 + (covered.contains($1.1) ? lengths[$1.0] : 0) } / total
    }

    /// The compatibility now of each known street among `ids` (unknown ids are left out: the planner reports them).
    public func compatibilities(of ids: [Int64]) async throws -> [Int64: StreetCompatibility] {
        let entries = Set(ids).compactMap { catalog.street(id: $0) }
        return Dictionary(uniqueKeysWithValues: try await resolve(entries).map { ($0.street.id, $0.compatibility) })
    }
}
