/// A ride's figures, derived from its cleaned track (rules in docs/record-trip.md).
public struct TripStatistics: Codable, Sendable, Hashable {
    /// Length along the cleaned track, metres.
    public var distanceM: Double
    /// Last fix time − first fix time, seconds.
    public var elapsedS: Double
    /// Time spent moving, seconds.
    public var movingS: Double
    /// distance ÷ moving time, m/s (0 when nothing moved).
    public var averageSpeedMps: Double
    /// The highest sustained speed, m/s.
    public var maxSpeedMps: Double
    /// Smoothed elevation gain, metres (0 without altitudes).
    public var elevationGainM: Double
    /// Smoothed elevation loss, metres, positive (0 without altitudes).
    public var elevationLossM: Double
    /// First kept fix (`nil` for an empty track).
    public var start: GPSFix?
    /// Last kept fix (`nil` for an empty track).
    public var end: GPSFix?
    /// South, west, north, east in degrees (`nil` for an empty track).
    public var boundingBox: [Double]?

    /// Figures as given (all zero and absent by default: the statistics of an empty track).
    public init(distanceM: Double = 0, elapsedS: Double = 0, movingS: Double = 0, averageSpeedMps: Double = 0,
                maxSpeedMps: Double = 0, elevationGainM: Double = 0, elevationLossM: Double = 0, start: GPSFix? = nil,
                end: GPSFix? = nil, boundingBox: [Double]? = nil) {
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.movingS = movingS
        self.averageSpeedMps = averageSpeedMps
        self.maxSpeedMps = maxSpeedMps
        self.elevationGainM = elevationGainM
        self.elevationLossM = elevationLossM
        self.start = start
        self.end = end
        self.boundingBox = boundingBox
    }
}

/// The constants of the statistics (docs/record-trip.md gives the reasons and gpxpy's equivalents).
public struct StatisticsRules: Codable, Sendable, Hashable {
    /// A step between two fixes counts as moving when its speed is above this, m/s (gpxpy's default, 1 km/h).
    public var stoppedSpeedMps: Double = 1 / 3.6
    /// Max speed is measured over chords of at least this many seconds (from each fix to the first fix this much
    /// later), so that position noise averages out, s.
    public var maxSpeedWindowS: Double = 10
    /// …and is the highest median of this many consecutive chord speeds: one bad fix spoils the two chords that start
    /// or end at it, which a median of five ignores.
    public var maxSpeedWindows: Int = 5
    /// Altitudes are averaged over this many seconds either side of each fix (after gpxpy's 0.3/0.4/0.3 filter), s.
    public var elevationWindowS: Double = 10
    /// Elevation changes smaller than this, after smoothing, are noise, metres: gain and loss are counted between
    /// turning points that stand at least this far apart.
    public var elevationHysteresisM: Double = 5

    /// The default rules.
    public init() {}

    /// The rules the service uses.
    public static let standard = StatisticsRules()
}

/// Computes a ride's ``TripStatistics`` from its cleaned track in one pass plus a bounded window: O(n).
public enum TripStatisticsCalculator {
    /// The figures of `track` under `rules`. Fixes without a usable time or position (possible only when a caller
    /// builds a ``CleanedTrack`` by hand) are skipped; steps whose time does not increase add distance but no time.
    public static func compute(_ track: CleanedTrack, rules: StatisticsRules = .standard) -> TripStatistics {
        let track = TrackPoints(track.fixes)
        guard let first = track.first, let last = track.last else { return TripStatistics() }
        let motion = TrackMotion(track, rules: rules)
        let elevation = ElevationProfile(track, rules: rules)
        return TripStatistics(
            distanceM: motion.distanceM,
            elapsedS: max(0, last.time - first.time),
            movingS: motion.movingS,
            averageSpeedMps: motion.movingS > 0 ? motion.distanceM / motion.movingS : 0,
            maxSpeedMps: motion.maxSpeedMps,
            elevationGainM: elevation.gain,
            elevationLossM: elevation.loss,
            start: first,
            end: last,
            boundingBox: track.boundingBox
        )
    }
}
