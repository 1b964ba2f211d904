/// How a bicycle uses OpenStreetMap ways: which ways it may ride (or push along) and in which direction, how fast, and
/// how much a cyclist prefers them. One versioned value with every constant in it; `docs/road-network.md` has the full
/// table and how it was calibrated against GraphHopper's `bike` profile and BRouter's `trekking`.
///
/// **Weight.** An edge's weight is in *equivalent metres*: its length × ``referenceSpeed`` / speed ÷ preference — the
/// metres a cyclist would ride in the same time on a neutral road at cruising speed, discounted on preferred ways and
/// inflated on avoided ones (GraphHopper's bike weighting, distance / (speed × priority), scaled to metres). A compiled
/// graph records ``version``: a changed profile rebuilds every cache.
public struct BikeProfile: Sendable, Hashable {
    /// Bumped whenever any constant or rule below changes.
    public var version = 1

    /// Cruising speed on a good neutral road, km/h: the speed at which one metre weighs one equivalent metre.
    public var referenceSpeed = 18.0
    /// Speed when the bicycle is pushed (dismount, steps, sand, a way bicycles may use only on foot), km/h.
    public var pushingSpeed = 4.0
    /// No way is slower than this, km/h.
    public var minimumSpeed = 2.0

    /// Speed by `highway` value, km/h (GraphHopper's table; `steps` is the pushing speed, handled below).
    public var highwaySpeeds: [String: Double] = [
        "cycleway": 18, "residential": 18, "living_street": 6, "service": 12, "unclassified": 16, "road": 12,
        "tertiary": 18, "tertiary_link": 18, "secondary": 18, "secondary_link": 18, "primary": 18, "primary_link": 18,
        "trunk": 18, "trunk_link": 18, "motorway": 18, "motorway_link": 18,
        "track": 12, "path": 10, "footway": 6, "pedestrian": 6, "bridleway": 6, "platform": 6, "steps": 4,
    ]

    /// Speed cap by `surface`, km/h: a way is no faster than its surface allows.
    public var surfaceSpeeds: [String: Double] = [
        "paved": 18, "asphalt": 18, "concrete": 18, "concrete:lanes": 16, "concrete:plates": 16, "paving_stones": 16,
        "paving_stones:30": 16, "chipseal": 16, "compacted": 14, "fine_gravel": 14, "pebblestone": 14, "unpaved": 12,
        "gravel": 12, "cobblestone:flattened": 10, "sett": 10, "unhewn_cobblestone": 6, "cobblestone": 8, "metal": 10,
        "dirt": 10, "earth": 10, "ground": 10, "mud": 6, "grass": 8, "grass_paver": 8, "wood": 10, "sand": 4, "salt": 4,
        "ice": 2,
    ]

    /// Speed cap by `tracktype`, km/h.
    public var trackTypeSpeeds: [String: Double] = ["grade1": 18, "grade2": 12, "grade3": 8, "grade4": 6, "grade5": 4]

    /// Speed factor by `smoothness` (the speed is multiplied by it, then kept ≥ ``minimumSpeed``); `impassable` closes
    /// the way.
    public var smoothnessFactors: [String: Double] = [
        "excellent": 1.1, "good": 1.0, "intermediate": 0.9, "bad": 0.7, "very_bad": 0.4, "horrible": 0.3,
        "very_horrible": 0.1, "impassable": 0,
    ]

    /// Preference by way class: > 1 preferred, < 1 avoided (the weight divides by it). GraphHopper's priorities.
    public var classPreferences: [String: Double] = [
        "cycleway": 1.3, "living_street": 1.2, "residential": 1.2, "service": 1.2, "unclassified": 1.2, "track": 1.0,
        "road": 1.0, "tertiary": 1.0, "tertiary_link": 1.0, "secondary": 0.8, "secondary_link": 0.8, "primary": 0.5,
        "primary_link": 0.5, "trunk": 0.1, "trunk_link": 0.1, "motorway": 0.1, "motorway_link": 0.1, "path": 1.0,
        "footway": 0.9, "pedestrian": 0.9, "platform": 0.9, "bridleway": 0.8, "steps": 0.5,
    ]
    /// Preference of a way designated for bicycles (`bicycle=designated|official`, `cycleway=track`,
    /// `bicycle_road=yes`, `cyclestreet=yes`, `segregated=yes`) that is not a cycleway or steps.
    public var designatedPreference = 1.2
    /// Preference of a way with a cycle lane (`cycleway*=lane|shared_lane|share_busway|opposite_lane|opposite_track`).
    public var laneFactor = 1.1
    /// Extra factor for members of a bicycle route relation (`route=bicycle`, any `network`); multiplied in, at most
    /// ``maximumPreference``.
    public var cycleNetworkFactor = 1.15
    /// Preference of a way tagged `bicycle=use_sidepath` (a parallel cycleway is required by law).
    public var sidepathPreference = 0.1
    /// Highest and lowest preference after all factors.
    public var maximumPreference = 1.5
    public var minimumPreference = 0.1

    /// Turn costs in equivalent metres, added to a route's score for each turn (not to edge weights: the search is
    /// node-based and exact, turns are scored on the candidates it returns — `docs/road-network.md`).
    public var sharpTurnCost = 25.0
    public var turnCost = 10.0
    public var slightTurnCost = 0.0
    /// A U-turn at a via point or dead end.
    public var uTurnCost = 50.0

    /// The default profile.
    public init() {}

    /// `highway` values a bicycle never uses, whatever else is tagged (construction sites, proposed roads, corridors).
    public static let closedHighways: Set<String> = ["construction", "proposed", "abandoned", "disused", "corridor", "elevator",
                                                     "bus_guideway", "raceway", "escape", "via_ferrata", "rest_area", "services"]
    /// `highway` values only usable when `bicycle=yes|designated|permissive` says so.
    public static let motorHighways: Set<String> = ["motorway", "motorway_link", "trunk", "trunk_link"]
    /// `access`/`bicycle`/`vehicle` values that close a way to bicycles.
    public static let forbiddingValues: Set<String> = ["no", "private", "agricultural", "forestry", "military", "restricted",
                                                       "emergency", "delivery", "customers", "permit"]
    /// Values that explicitly allow bicycles.
    public static let allowingValues: Set<String> = ["yes", "designated", "permissive", "official", "destination"]
}
