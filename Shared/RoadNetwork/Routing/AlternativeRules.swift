/// What an alternative route must satisfy to be offered (the via-node method of Abraham, Delling, Goldberg and
/// Werneck, "Alternative routes in road networks", as OSRM and GraphHopper use it). `docs/road-network.md` says why
/// these values.
public struct AlternativeRules: Sendable, Hashable {
    /// An alternative weighs at most this many times the best route (OSRM: 1.15 with contraction hierarchies, 1.25
    /// with MLD; GraphHopper: 1.4).
    public var maximumStretch = 1.3
    /// The weight an alternative shares with any better route (the same edges in the same direction) is at most this
    /// share of that better route's weight (OSRM: 0.75; GraphHopper: 0.6).
    public var maximumSharing = 0.7
    /// Local optimality: the alternative's plateau — the stretch around its via vertex that lies on both shortest-path
    /// trees — weighs at least this share of the best route, so every part of it lighter than that share is itself a
    /// shortest path (OSRM's T-test: 0.1; GraphHopper's plateau: 0.2).
    public var minimumPlateau = 0.15
    /// Via vertices examined per request, cheapest first: bounds a request's work.
    public var maximumCandidates = 64

    /// The default rules.
    public init() {}
}
