import Geo

/// How many fixes the cleaner dropped, and why (each fix counted once, under the first rule it failed).
public struct CleaningCounts: Codable, Sendable, Hashable {
    /// Not a number, out of range, or otherwise unreadable values.
    public var invalid: Int = 0
    /// Horizontal accuracy worse than the rules allow.
    public var poorAccuracy: Int = 0
    /// Same time as a kept fix (or the same time and place).
    public var duplicate: Int = 0
    /// Earlier than the fix before it.
    public var outOfOrder: Int = 0
    /// Reached from the previous kept fix only at an impossible speed.
    public var impossibleJump: Int = 0

    /// No fix dropped.
    public init() {}

    /// Every dropped fix.
    public var total: Int { invalid + poorAccuracy + duplicate + outOfOrder + impossibleJump }
}

/// The derived track: the kept fixes in time order, and what was dropped. The raw upload is never changed.
public struct CleanedTrack: Sendable, Hashable {
    /// The kept fixes, in strictly increasing time.
    public var fixes: [GPSFix]
    /// How many fixes were dropped, by rule.
    public var dropped: CleaningCounts

    /// A cleaned track of `fixes` (as ``TrackCleaner`` made it, or built by hand in tests and tools).
    public init(fixes: [GPSFix], dropped: CleaningCounts) {
        self.fixes = fixes
        self.dropped = dropped
    }
}

/// The bounds the cleaner judges fixes by (docs/record-trip.md explains each choice).
public struct CleaningRules: Codable, Sendable, Hashable {
    /// A fix whose horizontal accuracy is worse (larger) than this is dropped as poor, metres. A positive accuracy up to
    /// this bound is kept; 0 means "not reported" (Android's `Location.getAccuracy()` without `hasAccuracy()`) and is
    /// kept like `nil`; a negative accuracy is iOS's "the coordinate is invalid" and the fix is dropped as invalid.
    public var maxAccuracyM: Double = 50
    /// The fastest a bicycle is taken to go between two fixes, m/s (108 km/h: above any downhill record on a road).
    public var maxSpeedMps: Double = 30
    /// Position noise allowed on top of `maxSpeedMps × Δt`, metres: two honest fixes 0.2 s apart may be 20 m apart.
    public var jumpSlackM: Double = 30
    /// How many consecutive fixes, consistent with each other but not with the kept track, make the cleaner believe them
    /// instead: a lone outlier is dropped, but a track that really moved on (or whose first fixes were the outliers) is
    /// not lost.
    public var confirmingFixes: Int = 3
    /// Times before this (2000-01-01, seconds since the epoch) are invalid: a zero or garbage clock.
    public var earliestTime: Double = 946_684_800
    /// Times after this (2100-01-01, seconds since the epoch) are invalid.
    public var latestTime: Double = 4_102_444_800

    /// The default rules.
    public init() {}

    /// The rules the service uses.
    public static let standard = CleaningRules()
}

/// Derives the cleaned track from the uploaded fixes: pure, deterministic and O(n) (each fix is looked at a bounded
/// number of times).
public enum TrackCleaner {
    /// The fixes that pass `rules`, in time order, with the count of each kind dropped.
    ///
    /// Fixes earlier than (or at the same time as) the last kept fix are dropped, not sorted back in: see
    /// docs/record-trip.md. A fix that cannot be reached from the last kept fix is held back; when
    /// `rules.confirmingFixes` such fixes agree with each other the cleaner believes them, dropping up to
    /// `confirmingFixes − 1` kept fixes they contradict (the lone outlier that was kept first).
    public static func clean(_ fixes: [GPSFix], rules: CleaningRules = .standard) -> CleanedTrack {
        var state = CleaningState(rules: rules)
        for fix in fixes {
            state.consider(fix)
        }
        state.finish()
        return CleanedTrack(fixes: state.kept, dropped: state.counts)
    }

    /// Why `fix` cannot be used at all (`nil` when its values are usable).
    static func screen(_ fix: GPSFix, rules: CleaningRules) -> WritableKeyPath<CleaningCounts, Int>? {
        guard fix.time.isFinite, fix.time >= rules.earliestTime, fix.time <= rules.latestTime, fix.position != nil
        else { return \.invalid }
        if let altitude = fix.altitude, !altitude.isFinite || abs(altitude) > 20_000 { return \.invalid }
        if let speed = fix.speed, !speed.isFinite || speed < 0 { return \.invalid }
        if let course = fix.course, !course.isFinite { return \.invalid }
        if let accuracy = fix.accuracy {
            guard accuracy.isFinite, accuracy >= 0 else { return \.invalid }
            if accuracy > rules.maxAccuracyM { return \.poorAccuracy }
        }
        return nil
    }

    /// Whether a bicycle can get from `from` to `to` in the time between them.
    static func reachable(from: GPSFix, to: GPSFix, rules: CleaningRules) -> Bool {
        guard let a = from.position, let b = to.position else { return false }
        return a.distance(to: b) <= rules.maxSpeedMps * (to.time - from.time) + rules.jumpSlackM
    }
}
