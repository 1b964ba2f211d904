import Foundation
import PathReview
import Testing

private let now = Date(timeIntervalSince1970: 1_790_000_000)

private func report(_ condition: PathCondition, daysAgo: Double) -> ConditionReport {
    ConditionReport(condition: condition, reportedAt: now.addingTimeInterval(-daysAgo * 86_400))
}

@Suite("path-review upkeep: the status rule")
struct PathStatusRuleTests {
    @Test("fewer than 3 reports of the last 30 days: the condition stays")
    func tooFew() {
        #expect(PathStatusRule.verdict([report(.medium, daysAgo: 1), report(.medium, daysAgo: 2), report(.medium, daysAgo: 31)], now: now) == nil)
        #expect(PathStatusRule.change(published: .optimal, overridden: false, reports: [report(.sufficient, daysAgo: 0)], now: now) == nil)
    }

    @Test("recent reports outweigh old ones (half-life 14 days)")
    func recency() {
        let reports = [report(.optimal, daysAgo: 40), report(.optimal, daysAgo: 35), report(.optimal, daysAgo: 29),
                       report(.medium, daysAgo: 1), report(.medium, daysAgo: 2), report(.requiresMaintenance, daysAgo: 0)]
        // optimal: 2^(-40/14) + 2^(-35/14) + 2^(-29/14) ≈ 0.137 + 0.177 + 0.238 = 0.552; medium ≈ 0.952 + 0.906 = 1.858.
        #expect(PathStatusRule.verdict(reports, now: now) == .medium)
        #expect(PathStatusRule.change(published: .optimal, overridden: false, reports: reports, now: now) == .medium)
        #expect(PathStatusRule.change(published: .medium, overridden: false, reports: reports, now: now) == nil)
        #expect(PathStatusRule.change(published: .optimal, overridden: true, reports: reports, now: now) == nil)
        #expect(abs(PathStatusRule.weight(report(.optimal, daysAgo: 14), now: now) - 0.5) < 1e-12)
    }

    @Test("a tie goes to the worse condition")
    func tie() {
        let reports = [report(.optimal, daysAgo: 3), report(.sufficient, daysAgo: 3), report(.optimal, daysAgo: 5),
                       report(.sufficient, daysAgo: 5)]
        #expect(PathStatusRule.verdict(reports, now: now) == .sufficient)
    }

    /// The oracle: for random report sets (seeded), the verdict is the condition whose weight no other beats and, of
    /// those, the worst — computed by sorting all four totals, independently of the rule's single scan.
    @Test("random report sets agree with a sort of the four totals")
    func oracle() {
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Int((seed >> 33) % UInt64(bound)) }
        let order = PathCondition.allCases
        for _ in 0..<500 {
            let reports = (0..<next(9)).map { _ in report(order[next(4)], daysAgo: Double(next(60))) }
            let recent = reports.filter { now.timeIntervalSince($0.reportedAt) <= 30 * 86_400 }.count
            let totals = order.map { condition in
                (condition, reports.filter { $0.condition == condition }.map { pow(0.5, now.timeIntervalSince($0.reportedAt) / 86_400 / 14) }.reduce(0, +))
            }
            let sorted = totals.filter { $0.1 > 0 }.sorted {
                $0.1 != $1.1 ? $0.1 > $1.1 : order.firstIndex(of: $0.0)! > order.firstIndex(of: $1.0)!
            }
            #expect(PathStatusRule.verdict(reports, now: now) == (recent >= 3 ? sorted.first?.0 : nil))
        }
    }
}
