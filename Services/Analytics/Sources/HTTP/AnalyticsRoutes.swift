import Contracts
import Foundation
import Hummingbird
import NIOCore
import ServiceKit

extension GuideSummary: ResponseEncodable {}
extension TourAnalytics: ResponseEncodable {}
extension PlatformFigures: ResponseEncodable {}
extension RiderAnalytics: ResponseEncodable {}
extension BikeFigures: ResponseEncodable {}

/// The analytics API: a guide's own statistics and charts, one tour's figures for its owner (and administrators),
/// platform figures for administrators, a rider's own rides with their chart (any signed-in user), and the bike side's
/// platform figures for administrators and moderators. Dates are UTC days (`from`, `to`: `YYYY-MM-DD`, both included,
/// at most two years; reversed or longer ranges are 422).
public struct AnalyticsRoutes: Sendable {
    let queries: AnalyticsQueries
    let now: @Sendable () -> Date

    public init(queries: AnalyticsQueries, now: @escaping @Sendable () -> Date = Date.init) {
        self.queries = queries
        self.now = now
    }

    /// Mounts the guide's, the tour owner's and the administrators' routes on `routes`.
    public func addRoutes(to routes: ServiceRoutes) {
        let guides = routes.authenticated("/v1/analytics/guides/me", requiring: .guide)
        guides.get("summary", use: guideSummary)
        guides.get("earnings.svg", use: earningsChart)
        guides.get("views.svg", use: viewsChart)
        routes.authenticated("/v1/analytics/tours", requiring: .guide, .admin).get(":id", use: tourFigures)
        routes.authenticated("/v1/analytics/platform", requiring: .admin).get(use: platformFigures)
        let riders = routes.authenticated("/v1/analytics/riders/me")
        riders.get(use: riderFigures)
        riders.get("chart.svg", use: riderChart)
        routes.authenticated("/v1/analytics/bike", requiring: .admin, .moderator).get(use: bikeFigures)
    }

    /// `GET /v1/analytics/guides/me/summary`: the caller's figures over the range.
    @Sendable func guideSummary(_ request: Request, context: ServiceRequestContext) async throws -> GuideSummary {
        let range = try AnalyticsRange.parse(Self.parameters(request), today: UTCDay(now()))
        return try await queries.guideSummary(guideId: try Self.caller(context), range: range)
    }

    /// `GET /v1/analytics/guides/me/earnings.svg`: net earnings per month in one currency, as a bar chart.
    @Sendable func earningsChart(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let parameters = Self.parameters(request)
        // Default: the 12 calendar months up to today's (or `to`'s) month.
        var withDefault = parameters
        if withDefault["from"] == nil {
            let to = parameters["to"].flatMap(UTCDay.init(iso:)) ?? UTCDay(now())
            withDefault["from"] = to.month.advanced(by: -11).firstDay.iso
        }
        let range = try AnalyticsRange.parse(withDefault, today: UTCDay(now()))
        var validator = Validator()
        let currency = parameters["currency"].map { $0.uppercased() }
        validator.require(currency.map { CurrencyCode($0) != nil } ?? true, field: "currency", code: "invalid-currency",
                          message: "must be an active ISO 4217 code such as EUR")
        try validator.check()
        let months = try await queries.earningsByMonth(guideId: try Self.caller(context), range: range)
        let shown = currency ?? Self.mainCurrency(months) ?? "EUR"
        let exponent = CurrencyCode(shown)?.minorUnitExponent ?? 2
        let values = months.map { month in Double(month.netEarnings.first { $0.currency == shown }?.amountMinor ?? 0) }
        let svg = SVGChart.bars(
            title: "Net earnings per month in \(shown), \(range.from.month) – \(range.to.month) (UTC)",
            categories: months.map(\.month), values: values, yAxisTitle: "Net earnings (\(shown))", xAxisTitle: "Month (UTC)",
            formatTick: { SVGChart.major($0, exponent: exponent) })
        return Self.svg(svg)
    }

    /// `GET /v1/analytics/guides/me/views.svg`: views and unique viewers per day or ISO week, as a line chart.
    @Sendable func viewsChart(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let parameters = Self.parameters(request)
        let range = try AnalyticsRange.parse(parameters, today: UTCDay(now()))
        var validator = Validator()
        let bucket = parameters["bucket"].map { AnalyticsQueries.Bucket(rawValue: $0) }
        validator.require(bucket.map { $0 != nil } ?? true, field: "bucket", code: "not-allowed", message: "must be day or week")
        try validator.check()
        let chosen = (bucket ?? nil) ?? (range.days <= 92 ? .day : .week)
        let points = try await queries.views(guideId: try Self.caller(context), range: range, bucket: chosen)
        let unit = chosen == .day ? "day" : "ISO week"
        let svg = SVGChart.lines(
            title: "Views per \(unit), \(range.from) – \(range.to) (UTC)", categories: points.map(\.label),
            series: [
                .init(name: "Views", values: points.map { Double($0.views) }, color: "#2f6fdf"),
                .init(name: "Unique viewers", values: points.map { Double($0.uniqueViewers) }, color: "#e0702b"),
            ],
            yAxisTitle: "Views", xAxisTitle: chosen == .day ? "Day (UTC)" : "ISO week")
        return Self.svg(svg)
    }

    /// `GET /v1/analytics/tours/{id}`: one tour's figures, for its guide and administrators.
    @Sendable func tourFigures(_ request: Request, context: ServiceRequestContext) async throws -> TourAnalytics {
        let identity = try context.requireIdentity()
        let unknown = Problem.notFound("analytics knows no tour with this id", code: "unknown-tour")
        let id = try context.parameters.require("id", as: UUID.self, ifInvalid: unknown).uuidString.lowercased()
        guard let owner = try await queries.tourOwner(id) else { throw unknown }
        guard identity.role == .admin || owner == Self.normalized(identity.subject) else {
            throw Problem.forbidden("only the tour's guide sees its statistics", code: "not-tour-owner")
        }
        let range = try AnalyticsRange.parse(Self.parameters(request), today: UTCDay(now()))
        guard let tour = try await queries.tour(id, range: range) else { throw unknown }
        return tour
    }

    /// `GET /v1/analytics/platform` (administrators): figures of the whole platform.
    @Sendable func platformFigures(_ request: Request, context: ServiceRequestContext) async throws -> PlatformFigures {
        let range = try AnalyticsRange.parse(Self.parameters(request), today: UTCDay(now()))
        return try await queries.platform(range: range)
    }

    /// `GET /v1/analytics/riders/me` (any signed-in user): the caller's rides per ISO week and month. Default range: the
    /// 12 calendar months up to `to`'s (today's) month.
    @Sendable func riderFigures(_ request: Request, context: ServiceRequestContext) async throws -> RiderAnalytics {
        let range = try Self.riderRange(Self.parameters(request), period: .month, today: UTCDay(now()))
        return try await queries.rider(try Self.caller(context), range: range)
    }

    /// `GET /v1/analytics/riders/me/chart.svg?metric&period`: one metric of the caller's rides per ISO week (default:
    /// the 12 weeks up to `to`'s) or calendar month (the 12 months up to `to`'s), as a bar chart.
    @Sendable func riderChart(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let parameters = Self.parameters(request)
        var validator = Validator()
        let metric = parameters["metric"].map { RiderMetric(rawValue: $0) }
        let period = parameters["period"].map { RiderPeriodKind(rawValue: $0) }
        validator.require(metric.map { $0 != nil } ?? true, field: "metric", code: "not-allowed",
                          message: "must be distance, moving-time, elevation or trips")
        validator.require(period.map { $0 != nil } ?? true, field: "period", code: "not-allowed", message: "must be week or month")
        try validator.check()
        let (shown, kind) = ((metric ?? nil) ?? .distance, (period ?? nil) ?? .week)
        let range = try Self.riderRange(parameters, period: kind, today: UTCDay(now()))
        let figures = try await queries.rider(try Self.caller(context), range: range)
        let periods = kind == .week ? figures.weeks : figures.months
        let names = shown.names
        let svg = SVGChart.bars(
            title: "\(names.title) per \(kind == .week ? "ISO week" : "month"), \(range.from) – \(range.to) (UTC)",
            categories: periods.map(\.period), values: periods.map(shown.value), yAxisTitle: names.axis,
            xAxisTitle: kind == .week ? "ISO week" : "Month (UTC)", formatTick: SVGChart.decimal)
        return Self.svg(svg)
    }

    /// A rider's range: `from` and `to` as everywhere, but by default the 12 ISO weeks or calendar months up to `to`'s.
    static func riderRange(_ parameters: [String: String], period: RiderPeriodKind, today: UTCDay) throws -> AnalyticsRange {
        var withDefault = parameters
        if withDefault["from"] == nil {
            let to = parameters["to"].flatMap(UTCDay.init(iso:)) ?? today
            withDefault["from"] = (period == .week ? to.weekStart.advanced(by: -77) : to.month.advanced(by: -11).firstDay).iso
        }
        return try AnalyticsRange.parse(withDefault, today: today)
    }

    /// `GET /v1/analytics/bike` (administrators and moderators): the review queue, obstacles and navigation sessions.
    @Sendable func bikeFigures(_ request: Request, context: ServiceRequestContext) async throws -> BikeFigures {
        let range = try AnalyticsRange.parse(Self.parameters(request), today: UTCDay(now()))
        return try await queries.bike(range: range)
    }

    /// The caller's user id in its canonical form.
    static func caller(_ context: ServiceRequestContext) throws -> String {
        normalized(try context.requireIdentity().subject)
    }

    /// User ids are compared in their canonical lower-case form.
    static func normalized(_ subject: String) -> String {
        UUID(uuidString: subject)?.uuidString.lowercased() ?? subject
    }

    /// The currency with the largest net earnings over the months (by absolute amount).
    static func mainCurrency(_ months: [MonthEarnings]) -> String? {
        var totals: [String: Int64] = [:]
        for month in months { for entry in month.netEarnings { totals[entry.currency, default: 0] += abs(entry.amountMinor) } }
        return totals.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    /// An SVG response, privately cacheable for a minute.
    static func svg(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        headers[.cacheControl] = "private, max-age=60"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The query parameters, last value winning.
    static func parameters(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { result[String(name)] = String(value) }
        return result
    }
}
