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
    /// Peak vertical acceleration after gravity and the high-pass filter, m/s², as recorded: a phone sampling at
    /// 20 Hz shows a short shock lower than one at 100 Hz (``severity`` allows for the rate).
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

/// Obstacle candidates from a ride's accelerometer samples, after Pothole Patrol's chain (Eriksson et al., MobiSys
/// 2008) adapted to a phone carried in any orientation on a bicycle: gravity's direction from a rolling mean, the
/// vertical acceleration as the projection on it, a high-pass, a speed gate, peaks against a rolling baseline and a
/// speed-scaled threshold, a type guess and a severity; rough stretches from sustained energy. `docs/record-trip.md`
/// describes each link and its constants (``ObstacleDetectorSettings``).
public enum ObstacleDetector {
    /// Candidates in time order. `route`, when given, is the matched route's geometry: candidates are placed on it.
    ///
    /// Any input is accepted: non-finite samples and fixes are ignored, unsorted ones sorted; without fixes there is no
    /// speed, so the gate stays closed and the result is empty. Linear in the number of samples when they arrive in
    /// time order (as a phone records them).
    public static func detect(acceleration: [AccelerationSample], fixes: [GPSFix],
                              route: [Coordinate2D]? = nil,
                              settings: ObstacleDetectorSettings = .standard) -> [ObstacleCandidate] {
        let samples = usableSamples(acceleration)
        let track = RideTrack(fixes: fixes, maximumGap: settings.maximumFixGap)
        guard samples.count > 1, track.points.count > 1 else { return [] }
        let vertical = VerticalAcceleration(samples: samples, settings: settings)
        let speeds = track.speeds(at: vertical.times)
        let blocks = RoughnessBlocks(vertical, speeds: speeds, settings: settings)
        let stretches = blocks.stretches(settings: settings)
        let shocks = ShockEvents.find(vertical, speeds: speeds, blocks: blocks, settings: settings)
        let found = CandidatePlacement.candidates(shocks: shocks, stretches: stretches, vertical: vertical,
                                                  settings: settings)
        return CandidatePlacement.place(found, track: track, route: route, settings: settings)
    }

    /// No phone accelerometer reads beyond ±16 g; a component larger than this (m/s²) is a corrupt sample, dropped.
    static let largestPlausibleReading = 1_000.0

    /// The finite, plausible samples in time order: the input itself when it is all of that (the usual case, no
    /// copy), else filtered and sorted.
    static func usableSamples(_ acceleration: [AccelerationSample]) -> [AccelerationSample] {
        let limit = largestPlausibleReading
        func usable(_ sample: AccelerationSample) -> Bool {
            sample.time.isFinite && abs(sample.x) <= limit && abs(sample.y) <= limit && abs(sample.z) <= limit
        }
        var previous = -Double.infinity
        var clean = true
        for sample in acceleration {
            guard usable(sample), sample.time >= previous else {
                clean = false
                break
            }
            previous = sample.time
        }
        if clean { return acceleration }
        return acceleration.filter(usable).sorted { $0.time < $1.time }
    }
}
