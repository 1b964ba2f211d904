import RoadNetwork

/// A place where the ride was rough, found in the accelerometer samples, before the rider confirms it.
public struct ObstacleCandidate: Codable, Sendable, Hashable {
    /// What the signature looks like.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        case pothole
        case bump
        case roughSurface = "rough-surface"
    }

    /// Seconds since the Unix epoch, UTC: the peak's time.
    public var time: Double
    /// Where the rider was at that time (interpolated between fixes; on the matched route when one was given).
    public var latitude: Double
    public var longitude: Double
    public var kind: Kind
    /// 0…1: how strong the shock was for the speed it was ridden at.
    public var severity: Double
    /// Peak vertical acceleration after gravity and the high-pass filter, m/s².
    public var peakMps2: Double
    /// Speed at the time, m/s.
    public var speedMps: Double

    public init(time: Double, latitude: Double, longitude: Double, kind: Kind, severity: Double, peakMps2: Double,
                speedMps: Double) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.kind = kind
        self.severity = severity
        self.peakMps2 = peakMps2
        self.speedMps = speedMps
    }
}

// SKELETON: the session's `obstacles` helper replaces this with the real detector.
public enum ObstacleDetector {
    /// Candidates in time order. `route`, when given, is the matched route's geometry:
    /// candidates are placed on it.
    public static func detect(acceleration: [AccelerationSample], fixes: [GPSFix],
                              route: [Coordinate2D]? = nil) -> [ObstacleCandidate] {
        []
    }
}
