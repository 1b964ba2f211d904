/// One position of a ride to be matched: time (seconds since the Unix epoch), WGS 84 degrees, the device's
/// horizontal accuracy in metres, and its ground speed (m/s) and course over ground (degrees clockwise from true north)
/// when known — a phone derives the last two from the GPS signal's Doppler shift, independently of the position's noise.
public struct MatchObservation: Sendable, Hashable {
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?
    public var speed: Double?
    /// Degrees clockwise from true north; a negative value (iOS's "invalid") counts as unknown.
    public var course: Double?

    public init(time: Double, latitude: Double, longitude: Double, accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
    }
}

/// A ride put onto the road network: one piece per stretch the matcher could follow without a break (a gap in the
/// fixes or a jump the network cannot explain splits the ride; nothing is invented across the split).
public struct MapMatchResult: Sendable, Hashable {
    /// A continuous matched stretch: its OSM node sequence (DESIGN: the identity of a street piece is OSM's) and its
    /// geometry, from where the fixes around its start put the rider at its first fix to where those around its end
    /// put them at its last (``MapMatchRules/endFixes``).
    public struct Piece: Sendable, Hashable {
        public var osmNodes: [Int64]
        public var geometry: [Coordinate2D]
        /// Metres along `geometry`.
        public var length: Double
        /// Indexes (into the observations) of the first and last fix this piece explains.
        public var firstObservation: Int
        public var lastObservation: Int

        public init(osmNodes: [Int64], geometry: [Coordinate2D], length: Double, firstObservation: Int, lastObservation: Int) {
            self.osmNodes = osmNodes
            self.geometry = geometry
            self.length = length
            self.firstObservation = firstObservation
            self.lastObservation = lastObservation
        }
    }

    /// What became of one observation.
    public struct FixMatch: Sendable, Hashable {
        public enum State: String, Sendable, Hashable, Codable {
            /// Snapped to the route by the matcher.
            case matched
            /// Skipped by the matcher (e.g. too close to the previous one) and placed on the route by time.
            case interpolated
            /// No street explains it (off the network, or a break).
            case unmatched
        }

        public var state: State
        /// The position on the route (`nil` when unmatched).
        public var position: Coordinate2D?
        /// Metres from the observation to `position` (`nil` when unmatched).
        public var distance: Double?
        /// Index into ``MapMatchResult/pieces`` (`nil` when unmatched).
        public var piece: Int?

        public init(state: State, position: Coordinate2D?, distance: Double?, piece: Int?) {
            self.state = state
            self.position = position
            self.distance = distance
            self.piece = piece
        }
    }

    public var pieces: [Piece]
    /// One per observation, in order.
    public var fixes: [FixMatch]
    /// 0…1: how well the route explains the observations.
    public var confidence: Double

    public init(pieces: [Piece], fixes: [FixMatch], confidence: Double) {
        self.pieces = pieces
        self.fixes = fixes
        self.confidence = confidence
    }
}

/// A latitude/longitude pair in WGS 84 degrees (no validation: it comes from the graph or from a projection on it).
public struct Coordinate2D: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A hidden-Markov-model map matcher (Newson & Krumm 2009; constants from Valhalla Meili): puts a ride's fixes on the
/// streets they were most likely taken on, as pieces of OSM node sequences (`docs/road-network.md`, "Map matching").
///
/// Candidates come from the router's ``SnapIndex`` (every edge within a fix's search radius), route distances from
/// bounded searches in the router's reusable search workspaces; the costs per metre prefer cycleways a little, so a
/// track that fits a cycleway and its parallel road about equally goes to the cycleway. Safe from any task.
public struct MapMatcher: Sendable {
    /// The router whose graph, snapping index and search workspaces the matcher uses.
    public let router: RoadRouter
    /// The matcher's constants.
    public let rules: MapMatchRules
    /// Metres × the way-preference factor, per edge and direction.
    let costs: RoadWeights
    /// The plane of the transition searches' A* bound.
    let plane: MatchPlane

    /// A matcher on `router`'s graph with `rules` (Meili's defaults by default).
    public init(router: RoadRouter, rules: MapMatchRules = MapMatchRules()) {
        self.router = router
        self.rules = rules
        costs = RoadWeights(matchingCostsOf: router.graph, exponent: rules.preferenceExponent,
                            minorFactor: rules.minorWayFactor, minorClasses: rules.minorWayClasses)
        plane = MatchPlane(graph: router.graph)
    }

    /// The ride `observations` (in time order) put on the network; any input is answered — invalid fixes (NaN, off
    /// the globe) and fixes with no street within their radius come back `unmatched`, an empty ride as no pieces.
    public func match(_ observations: [MatchObservation]) -> MapMatchResult {
        let lattice = MatchLattice(observations, index: router.snapIndex, rules: rules)
        return router.trees.withTree { tree in
            let transitions = MatchTransitions(graph: router.graph, costs: costs, rules: rules, tree: tree, plane: plane)
            let path = MatchViterbi(lattice: lattice, fixes: observations, transitions: transitions).run()
            return MatchAssembly(lattice: lattice, fixes: observations, transitions: transitions).result(path)
        }
    }
}
