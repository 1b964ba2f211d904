import Contracts
import Foundation

/// The bike side's questions (issue 22), on either backend.
extension AnalyticsQueries {
    // MARK: A rider

    /// The rider's finished rides that started in `range`, per ISO week and calendar month (edge periods count only their
    /// days inside the range). Reads only the rider's rows of the range (index on rider and day).
    public func rider(_ riderId: String, range: AnalyticsRange) async throws -> RiderAnalytics {
        let rows = try await database.fetch([AnalyticsQuery("""
            SELECT day, distance_mm, moving_ms, elevation_gain_mm FROM \(S.riderTrips) WHERE rider_id = $1 AND day BETWEEN $2 AND $3
            """, [.text(riderId), .day(range.from), .day(range.to)])])[0]
        /// Per day: rides, millimetres, milliseconds, millimetres of climb — integers, summed exactly.
        var days: [Int: [Int64]] = [:]
        for row in rows {
            var sums = days[Int(row.int(0)), default: [0, 0, 0, 0]]
            sums[0] += 1
            for column in 1...3 { sums[column] += row.int(column) }
            days[Int(row.int(0))] = sums
        }
        func period(_ label: String, _ first: UTCDay, _ last: UTCDay) -> RiderPeriod {
            let from = max(first, range.from), to = min(last, range.to)
            var sums: [Int64] = [0, 0, 0, 0]
            for day in from...to { if let day = days[day.number] { for index in 0..<4 { sums[index] += day[index] } } }
            let totals = Self.totals(sums)
            return RiderPeriod(period: label, from: from.iso, to: to.iso, trips: totals.trips, distanceM: totals.distanceM,
                               movingTimeS: totals.movingTimeS, elevationGainM: totals.elevationGainM)
        }
        let weeks = stride(from: range.from.weekStart.number, through: range.to.number, by: 7).map { start in
            period(UTCDay(start).isoWeek.description, UTCDay(start), UTCDay(start + 6))
        }
        let months = sequence(first: range.from.month) { $0 < range.to.month ? $0.advanced(by: 1) : nil }.map { month in
            period(month.description, month.firstDay, month.lastDay)
        }
        let all = days.values.reduce([Int64](repeating: 0, count: 4)) { sums, day in zip(sums, day).map { $0 + $1 } }
        return RiderAnalytics(riderId: riderId, from: range.from.iso, to: range.to.iso, totals: Self.totals(all), weeks: weeks,
                              months: months)
    }

    /// Rides, millimetres, milliseconds and millimetres of climb as figures in metres and seconds.
    static func totals(_ sums: [Int64]) -> RideTotals {
        RideTotals(trips: sums[0], distanceM: Double(sums[1]) / 1_000, movingTimeS: Double(sums[2]) / 1_000,
                   elevationGainM: Double(sums[3]) / 1_000)
    }

    // MARK: The platform

    /// The platform's bike figures over `range`; the queue's length at the end of `range.to`.
    public func bike(range: AnalyticsRange) async throws -> BikeFigures {
        let from = SQLArg.day(range.from), to = SQLArg.day(range.to)
        let sums = BikeCounter.allCases.map { "CAST(SUM(\($0.column)) AS BIGINT)" }.joined(separator: ", ")
        let results = try await database.fetch([
            AnalyticsQuery("SELECT \(sums) FROM \(S.bikeDays) WHERE day BETWEEN $1 AND $2", [from, to]),
            AnalyticsQuery("SELECT CAST(SUM(reviews_opened - reviews_closed) AS BIGINT) FROM \(S.bikeDays) WHERE day <= $1", [to]),
            AnalyticsQuery("SELECT outcome, wait_ms FROM \(S.reviewDecisions) WHERE day BETWEEN $1 AND $2 ORDER BY wait_ms", [from, to]),
        ])
        let row = results[0].first
        func count(_ counter: BikeCounter) -> Int64 { row?.int(counter.rawValue) ?? 0 }
        let decisions = results[2]
        func decided(_ outcome: PathReviewOutcome) -> Int64 { Int64(decisions.filter { $0.text(0) == outcome.rawValue }.count) }
        let (approved, rejected, sentBack) = (decided(.approved), decided(.rejected), decided(.sentBack))
        let sessions = count(.sessions)
        return BikeFigures(
            from: range.from.iso, to: range.to.iso,
            review: ReviewFigures(
                queueLength: results[1].first?.int(0) ?? 0, submitted: count(.reviewsOpened), decisions: Int64(decisions.count),
                approved: approved, rejected: rejected, sentBack: sentBack, withdrawn: count(.reviewsClosed) - Int64(decisions.count),
                approvalRate: rate(approved, approved + rejected), medianTimeToDecisionS: Self.median(decisions.map { $0.int(1) })),
            obstacles: ObstacleFigures(
                confirmedByRiders: count(.riderObstacles), newOnPaths: count(.pathObstaclesNew),
                confirmationsOnPaths: count(.pathObstacleConfirmations), resolvedOnPaths: count(.pathObstaclesResolved)),
            navigation: NavigationFigures(
                sessions: sessions, tourSessions: count(.tourSessions), reroutes: count(.reroutes), reroutedSessions: count(.reroutedSessions),
                reroutesPerSession: rate(count(.reroutes), sessions), reroutedSessionRate: rate(count(.reroutedSessions), sessions),
                arrivals: count(.arrivals)))
    }

    /// The median of ascending milliseconds, in seconds (the mean of the two middle values for an even count); `nil`
    /// for none.
    static func median(_ sorted: [Int64]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        let milliseconds = sorted.count % 2 == 1 ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
        return milliseconds / 1_000
    }
}
