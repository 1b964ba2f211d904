import Foundation

/// The questions the API answers, on either backend. Every figure comes from per-day aggregate rows keyed by guide
/// first, so a guide's summary reads only that guide's rows of the range (index range scans; see docs/analytics.md
/// for the measured cost at a million events), and several queries run in one read snapshot.
public struct AnalyticsQueries: Sendable {
    let database: AnalyticsDatabase

    public init(database: AnalyticsDatabase) {
        self.database = database
    }

    typealias S = AnalyticsSchema

    // MARK: Guide summary

    /// The guide's figures over `range`, with the per-tour table, 12 months of earnings up to `range.to`, the top tours
    /// and the recent activity.
    public func guideSummary(guideId: String, range: AnalyticsRange) async throws -> GuideSummary {
        let g = SQLArg.text(guideId), from = SQLArg.day(range.from), to = SQLArg.day(range.to)
        let months = Self.twelveMonths(endingWith: range.to)
        let results = try await database.fetch([
            AnalyticsQuery("""
                SELECT tour_id, CAST(SUM(views) AS BIGINT), CAST(SUM(checkouts) AS BIGINT), CAST(SUM(acquisitions) AS BIGINT),
                    CAST(SUM(starts) AS BIGINT), CAST(SUM(completions) AS BIGINT), CAST(SUM(reviews) AS BIGINT)
                FROM \(S.tourDays) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 GROUP BY tour_id
                """, [g, from, to]),
            AnalyticsQuery("""
                SELECT tour_id, currency, \(Self.salesSums) FROM \(S.salesDays)
                WHERE guide_id = $1 AND day BETWEEN $2 AND $3 GROUP BY tour_id, currency
                """, [g, from, to]),
            AnalyticsQuery("SELECT COUNT(DISTINCT viewer) FROM \(S.viewers) WHERE guide_id = $1 AND day BETWEEN $2 AND $3", [g, from, to]),
            AnalyticsQuery("""
                SELECT tour_id, COUNT(DISTINCT viewer) FROM \(S.viewers) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 GROUP BY tour_id
                """, [g, from, to]),
            AnalyticsQuery("SELECT tour_id, title, listed, rating_sum, rating_count FROM \(S.tours) WHERE guide_id = $1", [g]),
            Self.monthlyQuery(guide: g, tour: nil, from: months.first!.firstDay, to: range.to),
            AnalyticsQuery("""
                SELECT occurred_us, kind, tour_id, amount_minor, currency, rating FROM \(S.activity) WHERE guide_id = $1
                ORDER BY occurred_us DESC, event_id DESC LIMIT \(S.activityLimit)
                """, [g]),
        ])
        var tours = Self.tourFigures(days: results[0], sales: results[1], unique: results[3], info: results[4])
        tours.sort { lhs, rhs in
            let (l, r) = (lhs.purchases + lhs.acquisitions, rhs.purchases + rhs.acquisitions)
            if l != r { return l > r }
            if lhs.views != rhs.views { return lhs.views > rhs.views }
            return lhs.tourId < rhs.tourId
        }
        let titles = Dictionary(tours.map { ($0.tourId, $0.title) }, uniquingKeysWith: { first, _ in first })
        var sales: [String: CurrencySales] = [:]
        for tour in tours {
            for entry in tour.sales { sales[entry.currency, default: CurrencySales(currency: entry.currency)].add(entry) }
        }
        func total(_ key: KeyPath<TourFigures, Int64>) -> Int64 { tours.reduce(0) { $0 + $1[keyPath: key] } }
        let ratingSum = results[4].reduce(0) { $0 + $1.int(3) }, ratingCount = results[4].reduce(0) { $0 + $1.int(4) }
        let uniqueViewers = results[2].first?.int(0) ?? 0
        let (purchases, acquisitions, starts, completions) = (total(\.purchases), total(\.acquisitions), total(\.starts), total(\.completions))
        let top = tours.filter { $0.purchases + $0.acquisitions + $0.views > 0 }.prefix(5).map {
            TopTour(tourId: $0.tourId, title: $0.title, purchases: $0.purchases, acquisitions: $0.acquisitions, views: $0.views,
                    netEarnings: $0.sales.map { CurrencyAmount(currency: $0.currency, amountMinor: $0.netEarningsMinor) })
        }
        return GuideSummary(
            guideId: guideId, from: range.from.iso, to: range.to.iso, views: total(\.views), uniqueViewers: uniqueViewers,
            checkouts: total(\.checkouts), purchases: purchases, acquisitions: acquisitions,
            conversionRate: rate(purchases + acquisitions, uniqueViewers),
            sales: sales.values.sorted { $0.currency < $1.currency }, refunds: total(\.refunds),
            rating: Self.rating(sum: ratingSum, count: ratingCount), reviews: total(\.reviews), starts: starts, completions: completions,
            completionRate: rate(completions, starts), tours: tours, earningsByMonth: Self.months(months, results[5]),
            topTours: Array(top),
            recentActivity: results[6].map { row in
                ActivityEntry(at: Date(microsecondsSince1970: row.int(0)), kind: ActivityKind(rawValue: row.text(1) ?? "") ?? .published,
                              tourId: row.text(2) ?? "", tourTitle: titles[row.text(2) ?? ""] ?? nil,
                              amount: row.optionalInt(3).flatMap { amount in row.text(4).map { CurrencyAmount(currency: $0, amountMinor: amount) } },
                              rating: row.optionalInt(5))
            })
    }

    // MARK: One tour

    /// The guide a tour belongs to as analytics knows it (`nil`: never seen).
    public func tourOwner(_ tourId: String) async throws -> String? {
        let rows = try await database.fetch([AnalyticsQuery("SELECT guide_id FROM \(S.tours) WHERE tour_id = $1", [.text(tourId)])])
        return rows[0].first?.text(0)
    }

    /// A tour's figures over `range`, its daily series and 12 months of earnings; `nil` for a tour analytics has not seen.
    public func tour(_ tourId: String, range: AnalyticsRange) async throws -> TourAnalytics? {
        guard let guideId = try await tourOwner(tourId) else { return nil }
        let g = SQLArg.text(guideId), from = SQLArg.day(range.from), to = SQLArg.day(range.to), t = SQLArg.text(tourId)
        let months = Self.twelveMonths(endingWith: range.to)
        let results = try await database.fetch([
            AnalyticsQuery("""
                SELECT day, views, checkouts, acquisitions, starts, completions, reviews FROM \(S.tourDays)
                WHERE guide_id = $1 AND day BETWEEN $2 AND $3 AND tour_id = $4
                """, [g, from, to, t]),
            AnalyticsQuery("""
                SELECT day, currency, \(Self.salesSums) FROM \(S.salesDays)
                WHERE guide_id = $1 AND day BETWEEN $2 AND $3 AND tour_id = $4 GROUP BY day, currency
                """, [g, from, to, t]),
            AnalyticsQuery("""
                SELECT COUNT(DISTINCT viewer) FROM \(S.viewers) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 AND tour_id = $4
                """, [g, from, to, t]),
            AnalyticsQuery("""
                SELECT day, COUNT(*) FROM \(S.viewers) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 AND tour_id = $4 GROUP BY day
                """, [g, from, to, t]),
            AnalyticsQuery("SELECT tour_id, title, listed, rating_sum, rating_count FROM \(S.tours) WHERE tour_id = $1", [t]),
            Self.monthlyQuery(guide: g, tour: t, from: months.first!.firstDay, to: range.to),
        ])
        // The tour's totals: the same assembly as the guide's table, over the day rows grouped to one.
        let dayRows = results[0], salesRows = results[1]
        let totalsRow = AnalyticsRow(cells: [.text(tourId)] + (1...6).map { column in .int(dayRows.reduce(0) { $0 + $1.int(column) }) })
        let salesTotals = Dictionary(grouping: salesRows) { $0.text(1) ?? "" }.map { currency, rows in
            AnalyticsRow(cells: [.text(tourId), .text(currency)] + (2...9).map { column in .int(rows.reduce(0) { $0 + $1.int(column) }) })
        }
        let unique = AnalyticsRow(cells: [.text(tourId), .int(results[2].first?.int(0) ?? 0)])
        guard let figures = Self.tourFigures(days: [totalsRow], sales: salesTotals, unique: [unique], info: results[4])
            .first(where: { $0.tourId == tourId }) else { return nil }
        let daily = Dictionary(dayRows.map { (Int($0.int(0)), $0) }, uniquingKeysWith: { first, _ in first })
        let purchasesByDay = Dictionary(grouping: salesRows) { Int($0.int(0)) }.mapValues { $0.reduce(0) { $0 + $1.int(2) } }
        let uniqueByDay = Dictionary(results[3].map { (Int($0.int(0)), $0.int(1)) }, uniquingKeysWith: { first, _ in first })
        let days = range.allDays.map { day in
            let row = daily[day.number]
            return TourDay(date: day.iso, views: row?.int(1) ?? 0, uniqueViewers: uniqueByDay[day.number] ?? 0,
                           checkouts: row?.int(2) ?? 0, purchases: purchasesByDay[day.number] ?? 0, acquisitions: row?.int(3) ?? 0,
                           starts: row?.int(4) ?? 0, completions: row?.int(5) ?? 0)
        }
        return TourAnalytics(guideId: guideId, from: range.from.iso, to: range.to.iso, figures: figures, days: days,
                             earningsByMonth: Self.months(months, results[5]))
    }

    // MARK: Charts

    /// Net earnings per calendar month overlapping `range` (days outside it not counted), per currency.
    public func earningsByMonth(guideId: String, range: AnalyticsRange) async throws -> [MonthEarnings] {
        let months = Array(sequence(first: range.from.month) { $0 < range.to.month ? $0.advanced(by: 1) : nil })
        let results = try await database.fetch([Self.monthlyQuery(guide: .text(guideId), tour: nil, from: range.from, to: range.to)])
        return Self.months(months, results[0])
    }

    /// How views are bucketed on the views chart.
    public enum Bucket: String, Sendable, CaseIterable {
        case day, week
    }

    /// One bucket of the views chart.
    public struct ViewsPoint: Sendable, Hashable {
        /// `YYYY-MM-DD` for days, `YYYY-Www` for ISO weeks.
        public var label: String
        public var views: Int64
        /// Distinct viewers within the bucket.
        public var uniqueViewers: Int64
    }

    /// Views and unique viewers of the guide's tours per day or ISO week of `range` (edge weeks count only their days
    /// inside the range).
    public func views(guideId: String, range: AnalyticsRange, bucket: Bucket) async throws -> [ViewsPoint] {
        let g = SQLArg.text(guideId), from = SQLArg.day(range.from), to = SQLArg.day(range.to)
        // Day 0 (1970-01-01) is a Thursday: (day + 3) / 7 numbers the Monday-based weeks.
        let key = bucket == .day ? "day" : "(day + 3) / 7"
        let results = try await database.fetch([
            AnalyticsQuery("""
                SELECT \(key), CAST(SUM(views) AS BIGINT) FROM \(S.tourDays) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 GROUP BY \(key)
                """, [g, from, to]),
            AnalyticsQuery("""
                SELECT \(key), COUNT(DISTINCT viewer) FROM \(S.viewers) WHERE guide_id = $1 AND day BETWEEN $2 AND $3 GROUP BY \(key)
                """, [g, from, to]),
        ])
        let views = Dictionary(results[0].map { (Int($0.int(0)), $0.int(1)) }, uniquingKeysWith: { first, _ in first })
        let unique = Dictionary(results[1].map { (Int($0.int(0)), $0.int(1)) }, uniquingKeysWith: { first, _ in first })
        switch bucket {
        case .day:
            return range.allDays.map { ViewsPoint(label: $0.iso, views: views[$0.number] ?? 0, uniqueViewers: unique[$0.number] ?? 0) }
        case .week:
            let weeks = Array(stride(from: (range.from.number + 3) / 7, through: (range.to.number + 3) / 7, by: 1))
            return weeks.map { week in
                ViewsPoint(label: UTCDay(week * 7 - 3).isoWeek.description, views: views[week] ?? 0, uniqueViewers: unique[week] ?? 0)
            }
        }
    }

    // MARK: Platform

    /// Platform figures over `range` for administrators.
    public func platform(range: AnalyticsRange) async throws -> PlatformFigures {
        let from = SQLArg.day(range.from), to = SQLArg.day(range.to), erased = SQLArg.text(S.erasedGuide)
        let results = try await database.fetch([
            AnalyticsQuery("SELECT day, role, registrations FROM \(S.registrations) WHERE day BETWEEN $1 AND $2", [from, to]),
            AnalyticsQuery("""
                SELECT COUNT(DISTINCT guide_id) FROM \(S.tourDays) WHERE day BETWEEN $1 AND $2 AND guide_id <> $3
                """, [from, to, erased]),
            AnalyticsQuery("SELECT COUNT(DISTINCT guide_id) FROM \(S.tours) WHERE listed = 1 AND guide_id <> $1", [erased]),
            AnalyticsQuery("SELECT currency, \(Self.salesSums) FROM \(S.salesDays) WHERE day BETWEEN $1 AND $2 GROUP BY currency",
                           [from, to]),
            AnalyticsQuery("""
                SELECT CAST(SUM(views) AS BIGINT), CAST(SUM(checkouts) AS BIGINT), CAST(SUM(acquisitions) AS BIGINT),
                    CAST(SUM(starts) AS BIGINT), CAST(SUM(completions) AS BIGINT)
                FROM \(S.tourDays) WHERE day BETWEEN $1 AND $2
                """, [from, to]),
            AnalyticsQuery("""
                SELECT t.destination_id, CAST(SUM(d.views) AS BIGINT), CAST(SUM(d.acquisitions) AS BIGINT),
                    CAST(SUM(d.completions) AS BIGINT)
                FROM \(S.tourDays) d JOIN \(S.tours) t ON t.tour_id = d.tour_id
                WHERE d.day BETWEEN $1 AND $2 AND t.destination_id IS NOT NULL GROUP BY t.destination_id
                """, [from, to]),
            AnalyticsQuery("""
                SELECT t.destination_id, s.currency, CAST(SUM(s.purchases) AS BIGINT), CAST(SUM(s.gross_minor) AS BIGINT)
                FROM \(S.salesDays) s JOIN \(S.tours) t ON t.tour_id = s.tour_id
                WHERE s.day BETWEEN $1 AND $2 AND t.destination_id IS NOT NULL GROUP BY t.destination_id, s.currency
                """, [from, to]),
        ])
        var byDay: [Int: [String: Int64]] = [:]
        var byRole: [String: Int64] = [:]
        for row in results[0] {
            let role = row.text(1) ?? "unknown"
            byDay[Int(row.int(0)), default: [:]][role, default: 0] += row.int(2)
            byRole[role, default: 0] += row.int(2)
        }
        let sales = results[3].map { Self.currencySales($0, from: 1, currency: $0.text(0) ?? "") }.sorted { $0.currency < $1.currency }
        let funnelRow = results[4].first
        let purchases = sales.reduce(0) { $0 + $1.purchases }
        let (views, checkouts, acquisitions, starts, completions) = (funnelRow?.int(0) ?? 0, funnelRow?.int(1) ?? 0, funnelRow?.int(2) ?? 0,
                                                                    funnelRow?.int(3) ?? 0, funnelRow?.int(4) ?? 0)
        var destinations: [Int64: TopDestination] = [:]
        for row in results[5] {
            destinations[row.int(0)] = TopDestination(destinationId: row.int(0), views: row.int(1), purchases: 0, acquisitions: row.int(2),
                                                      completions: row.int(3), gross: [])
        }
        for row in results[6] {
            let id = row.int(0)
            var destination = destinations[id] ?? TopDestination(destinationId: id, views: 0, purchases: 0, acquisitions: 0, completions: 0,
                                                                 gross: [])
            destination.purchases += row.int(2)
            destination.gross.append(CurrencyAmount(currency: row.text(1) ?? "", amountMinor: row.int(3)))
            destination.gross.sort { $0.currency < $1.currency }
            destinations[id] = destination
        }
        let top = destinations.values.sorted { lhs, rhs in
            let (l, r) = (lhs.purchases + lhs.acquisitions, rhs.purchases + rhs.acquisitions)
            if l != r { return l > r }
            if lhs.views != rhs.views { return lhs.views > rhs.views }
            return lhs.destinationId < rhs.destinationId
        }.prefix(10)
        return PlatformFigures(
            from: range.from.iso, to: range.to.iso,
            registrations: range.allDays.map { RegistrationDay(date: $0.iso, byRole: byDay[$0.number] ?? [:]) },
            registrationsByRole: byRole, activeGuides: results[1].first?.int(0) ?? 0,
            guidesWithListedTours: results[2].first?.int(0) ?? 0, sales: sales, topDestinations: Array(top),
            funnel: PurchaseFunnel(views: views, checkouts: checkouts, purchases: purchases, acquisitions: acquisitions, starts: starts,
                                   completions: completions, viewToPurchaseRate: rate(purchases + acquisitions, views),
                                   purchaseToCompletionRate: rate(completions, purchases + acquisitions)))
    }

    // MARK: Assembly shared by the answers

    static let salesSums = """
        CAST(SUM(purchases) AS BIGINT), CAST(SUM(gross_minor) AS BIGINT), CAST(SUM(fee_minor) AS BIGINT),
        CAST(SUM(earnings_minor) AS BIGINT), CAST(SUM(refunds) AS BIGINT), CAST(SUM(refunded_minor) AS BIGINT),
        CAST(SUM(refunded_fee_minor) AS BIGINT), CAST(SUM(refunded_earnings_minor) AS BIGINT)
        """

    static func currencySales(_ row: AnalyticsRow, from column: Int, currency: String) -> CurrencySales {
        var sales = CurrencySales(currency: currency)
        sales.purchases = row.int(column)
        sales.grossMinor = row.int(column + 1)
        sales.platformFeeMinor = row.int(column + 2)
        sales.earningsMinor = row.int(column + 3)
        sales.refunds = row.int(column + 4)
        sales.refundedMinor = row.int(column + 5)
        sales.refundedPlatformFeeMinor = row.int(column + 6)
        sales.refundedEarningsMinor = row.int(column + 7)
        sales.netEarningsMinor = sales.earningsMinor - sales.refundedEarningsMinor
        return sales
    }

    static func rating(sum: Int64, count: Int64) -> RatingFigures {
        RatingFigures(average: count > 0 ? (Double(sum) / Double(count) * 100).rounded() / 100 : nil, count: count)
    }

    /// Per-tour figures from: day sums by tour (`tour_id, views, checkouts, acquisitions, starts, completions, reviews`),
    /// sales sums by tour and currency, unique viewers by tour, and the tours' rows.
    static func tourFigures(days: [AnalyticsRow], sales: [AnalyticsRow], unique: [AnalyticsRow], info: [AnalyticsRow]) -> [TourFigures] {
        var tours: [String: TourFigures] = [:]
        func figures(_ id: String) -> TourFigures {
            tours[id] ?? TourFigures(tourId: id, title: nil, listed: false, views: 0, uniqueViewers: 0, checkouts: 0, purchases: 0,
                                     acquisitions: 0, conversionRate: nil, sales: [], refunds: 0,
                                     rating: RatingFigures(average: nil, count: 0), reviews: 0, starts: 0, completions: 0,
                                     completionRate: nil)
        }
        for row in info {
            let id = row.text(0) ?? ""
            var tour = figures(id)
            tour.title = row.text(1)
            tour.listed = row.int(2) == 1
            tour.rating = rating(sum: row.int(3), count: row.int(4))
            tours[id] = tour
        }
        for row in days {
            let id = row.text(0) ?? ""
            var tour = figures(id)
            tour.views += row.int(1)
            tour.checkouts += row.int(2)
            tour.acquisitions += row.int(3)
            tour.starts += row.int(4)
            tour.completions += row.int(5)
            tour.reviews += row.int(6)
            tours[id] = tour
        }
        for row in sales {
            let id = row.text(0) ?? ""
            var tour = figures(id)
            let entry = currencySales(row, from: 2, currency: row.text(1) ?? "")
            tour.purchases += entry.purchases
            tour.refunds += entry.refunds
            tour.sales.append(entry)
            tour.sales.sort { $0.currency < $1.currency }
            tours[id] = tour
        }
        for row in unique {
            let id = row.text(0) ?? ""
            var tour = figures(id)
            tour.uniqueViewers = row.int(1)
            tours[id] = tour
        }
        return tours.values.map { tour in
            var tour = tour
            tour.conversionRate = rate(tour.purchases + tour.acquisitions, tour.uniqueViewers)
            tour.completionRate = rate(tour.completions, tour.starts)
            return tour
        }
    }

    /// `day, currency, earnings, refunded earnings` rows of a guide (or one tour) between two days.
    static func monthlyQuery(guide: SQLArg, tour: SQLArg?, from: UTCDay, to: UTCDay) -> AnalyticsQuery {
        AnalyticsQuery("""
            SELECT day, currency, CAST(SUM(earnings_minor) AS BIGINT), CAST(SUM(refunded_earnings_minor) AS BIGINT)
            FROM \(S.salesDays) WHERE guide_id = $1 AND day BETWEEN $2 AND $3\(tour == nil ? "" : " AND tour_id = $4")
            GROUP BY day, currency
            """, [guide, .day(from), .day(to)] + (tour.map { [$0] } ?? []))
    }

    static func twelveMonths(endingWith day: UTCDay) -> [CalendarMonth] {
        (0..<12).map { day.month.advanced(by: $0 - 11) }
    }

    /// Net earnings per month (dense: every month listed, with an empty list when nothing was earned).
    static func months(_ months: [CalendarMonth], _ rows: [AnalyticsRow]) -> [MonthEarnings] {
        var sums: [CalendarMonth: [String: Int64]] = [:]
        for row in rows {
            sums[UTCDay(Int(row.int(0))).month, default: [:]][row.text(1) ?? "", default: 0] += row.int(2) - row.int(3)
        }
        return months.map { month in
            MonthEarnings(month: month.description, netEarnings: (sums[month] ?? [:]).sorted { $0.key < $1.key }.map {
                CurrencyAmount(currency: $0.key, amountMinor: $0.value)
            })
        }
    }
}
