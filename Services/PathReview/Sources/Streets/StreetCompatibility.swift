/// Whether a street may carry a community bike path, and if not, why. Issue 20 names three reasons; this version knows
/// the first (the profile), and the other two join as cases when approved paths and moderators' marks exist — the
/// response already carries the list, so clients need no change then.
public struct StreetCompatibility: Sendable, Hashable, Codable {
    /// Why a street is not compatible.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The bike profile lets a bicycle on none of its ways except pushed (dismount, steps, footways without bicycle
        /// access). Streets the profile forbids outright (motorways, `bicycle=no`) are not in the catalogue at all.
        case pushOnly = "push-only"
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
