/// Whether a street may carry a community bike path, and if not, why: the profile (fixed by the extract, known to the
/// catalogue), an approved path already along it and a moderator's mark (both from the `approved_paths` read model,
/// ``StreetStatus``).
public struct StreetCompatibility: Sendable, Hashable, Codable {
    /// Why a street is not compatible.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The bike profile lets a bicycle on none of its ways except pushed (dismount, steps, footways without bicycle
        /// access). Streets the profile forbids outright (motorways, `bicycle=no`) are not in the catalogue at all.
        case pushOnly = "push-only"
        /// Approved, not retired paths already run along the whole street (every one of its edges): a second path would
        /// duplicate them.
        case coveredByPath = "covered-by-path"
        /// A moderator marked the street incompatible (`PUT /v1/streets/{id}/incompatible`).
        case markedIncompatible = "marked-incompatible"
    }

    /// Every reason that applies, in declaration order; empty when the street is compatible.
    public var reasons: [Reason]

    /// Compatible: no reason against it.
    public var compatible: Bool { reasons.isEmpty }

    /// A compatibility with `reasons`.
    public init(reasons: [Reason]) {
        self.reasons = reasons
    }
}
