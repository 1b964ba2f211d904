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

    public init() {}

    /// Every dropped fix.
    public var total: Int { invalid + poorAccuracy + duplicate + outOfOrder + impossibleJump }
}

/// The derived track: the kept fixes in time order, and what was dropped. The raw upload is never changed.
public struct CleanedTrack: Sendable, Hashable {
    public var fixes: [GPSFix]
    public var dropped: CleaningCounts

    public init(fixes: [GPSFix], dropped: CleaningCounts) {
        self.fixes = fixes
        self.dropped = dropped
    }
}

// SKELETON: the session's `trackstats` helper replaces this file with the real rules and cleaner.
public struct CleaningRules: Codable, Sendable, Hashable {
    public init() {}
    public static let standard = CleaningRules()
}

public enum TrackCleaner {
    public static func clean(_ fixes: [GPSFix], rules: CleaningRules = .standard) -> CleanedTrack {
        CleanedTrack(fixes: fixes, dropped: CleaningCounts())
    }
}
