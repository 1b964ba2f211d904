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
    /// Smoothed elevation gain and loss, metres (0 without altitudes).
    public var elevationGainM: Double
    public var elevationLossM: Double
    /// First and last kept fix (`nil` for an empty track).
    public var start: GPSFix?
    public var end: GPSFix?
    /// South, west, north, east in degrees (`nil` for an empty track).
    public var boundingBox: [Double]?

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

// SKELETON: the session's `trackstats` helper replaces this with the real computation.
public enum TripStatisticsCalculator {
    public static func compute(_ track: CleanedTrack) -> TripStatistics {
        TripStatistics(start: track.fixes.first, end: track.fixes.last)
    }
}
