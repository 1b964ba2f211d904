import Foundation

/// A cyclist's report of an approved path's condition.
public struct ConditionReport: Codable, Sendable, Hashable {
    public var condition: PathCondition
    public var reportedAt: Date

    /// A report with every value given.
    public init(condition: PathCondition, reportedAt: Date) {
        self.condition = condition
        self.reportedAt = reportedAt
    }
}

/// The status rule (issue 20, point 6), pure: an approved path's published condition follows its condition reports,
/// recency-weighted.
/// - A report weighs `0.5^(age / halfLifeDays)` (half-life ``halfLifeDays``, 14 days); reports from the future weigh 1.
/// - The rule speaks only with at least ``minimumRecentReports`` (3) reports of the last ``recentDays`` (30) days;
///   with fewer, the condition stays as it is.
/// - It then names the condition of greatest total weight; a tie goes to the WORSE condition (a cyclist is better
///   warned than surprised).
/// - `PathStatusChanged(source: .reports)` is emitted only when the result differs from the published condition, and
///   never while a moderator's override holds.
public enum PathStatusRule {
    /// Days for a report's weight to halve.
    public static let halfLifeDays = 14.0
    /// How many recent reports the rule needs before it moves the condition.
    public static let minimumRecentReports = 3
    /// What "recent" means, in days.
    public static let recentDays = 30.0

    /// The condition the reports call for at `now`, or `nil` when too few are recent.
    public static func verdict(_ reports: [ConditionReport], now: Date) -> PathCondition? {
        let recent = reports.filter { now.timeIntervalSince($0.reportedAt) <= recentDays * 86_400 }
        guard recent.count >= minimumRecentReports else { return nil }
        var weights: [PathCondition: Double] = [:]
        for report in reports { weights[report.condition, default: 0] += weight(report, now: now) }
        // `allCases` runs best to worst: `>=` lets a later (worse) condition win a tie.
        var best: (condition: PathCondition, weight: Double)?
        for condition in PathCondition.allCases {
            let total = weights[condition] ?? 0
            if total > 0, total >= (best?.weight ?? 0) { best = (condition, total) }
        }
        return best?.condition
    }

    /// The new condition to publish, or `nil` when nothing changes (too few reports, the same condition, or a
    /// moderator's override holding).
    public static func change(published: PathCondition, overridden: Bool, reports: [ConditionReport], now: Date)
        -> PathCondition? {
        guard !overridden, let verdict = verdict(reports, now: now), verdict != published else { return nil }
        return verdict
    }

    /// A report's weight at `now`.
    public static func weight(_ report: ConditionReport, now: Date) -> Double {
        let days = max(0, now.timeIntervalSince(report.reportedAt) / 86_400)
        return pow(0.5, days / halfLifeDays)
    }
}
