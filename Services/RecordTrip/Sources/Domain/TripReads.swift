import ServiceKit
import Contracts
import Foundation
import RecordTripAnalysis

/// A trip as its rider (or an admin) sees it: the state, and what its sealed parts open to.
public struct TripView: Sendable {
    public var state: TripState
    public var detail: TripAnalysisDetail?
    public var outcome: TripReviewOutcome?
}

/// Totals over a set of finished trips. Metres and seconds.
public struct TripTotals: Codable, Sendable, Hashable {
    public var trips = 0
    public var distanceM = 0.0
    public var movingS = 0.0
    public var elapsedS = 0.0
    public var elevationGainM = 0.0

    /// Creates it.
    public init() {}

    mutating func add(_ row: TripRow) {
        guard row.status == .finished, let figures = row.figures else { return }
        trips += 1
        distanceM += figures.distanceM
        movingS += figures.movingS
        elapsedS += figures.elapsedS
        elevationGainM += figures.elevationGainM
    }
}

/// The buckets of `GET /v1/trips/summary`.
public enum SummaryPeriod: String, Sendable, CaseIterable {
    /// ISO weeks, starting Monday 00:00 UTC.
    case week
    /// Calendar months in UTC.
    case month

    /// The start of the bucket holding `date`.
    func start(of date: Date) -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components: Set<Calendar.Component> = self == .week ? [.yearForWeekOfYear, .weekOfYear] : [.year, .month]
        return calendar.date(from: calendar.dateComponents(components, from: date)) ?? date
    }
}

/// Reads of trips: one trip from its stream (read your writes), lists and totals from the `trips` read model.
public struct TripReads: Sendable {
    let commands: TripCommands
    let store: any TripReadStore

    /// Reads over the trip streams (through `commands`) and the `trips` read model.
    public init(commands: TripCommands, store: any TripReadStore) {
        self.commands = commands
        self.store = store
    }

    /// The trip with its sealed parts opened; 404 unless `caller` rides it or `isAdmin`.
    public func view(_ trip: UUID, caller: UUID, isAdmin: Bool) async throws -> TripView {
        let state = try await commands.load(trip)
        guard [.recording, .analysing, .finished].contains(state.status), isAdmin || state.riderId == caller else { throw TripError.notFound }
        let seal = commands.seal
        let detail = try await state.analysis.asyncMap { try await seal.open(TripAnalysisDetail.self, $0.detail) } ?? nil
        let outcome = try await state.review.asyncMap { try await seal.open(TripReviewOutcome.self, $0.outcome) } ?? nil
        return TripView(state: state, detail: detail, outcome: outcome)
    }

    /// A page of the rider's trips, newest first, and the totals of their finished trips in `[from, to)`.
    public func list(rider: UUID, after cursor: PageCursor?, limit: Int, from: Date?, to: Date?) async throws
        -> (rows: [TripRow], next: PageCursor?, totals: TripTotals) {
        let rows = try await store.page(rider: rider, after: cursor, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { PageCursor(key: $0.sortDate.microsecondsSince1970, id: $0.tripId) } : nil
        var totals = TripTotals()
        for row in try await store.all(rider: rider) where Self.contains(row.sortDate, from: from, to: to) { totals.add(row) }
        return (page, next, totals)
    }

    /// The rider's totals per week or month (newest first), over finished trips in `[from, to)`.
    public func summary(rider: UUID, period: SummaryPeriod, from: Date?, to: Date?) async throws -> [(start: Date, totals: TripTotals)] {
        var buckets: [Date: TripTotals] = [:]
        for row in try await store.all(rider: rider) where row.status == .finished && Self.contains(row.sortDate, from: from, to: to) {
            buckets[period.start(of: row.sortDate), default: TripTotals()].add(row)
        }
        return buckets.sorted { $0.key > $1.key }.map { ($0.key, $0.value) }
    }

    static func contains(_ date: Date, from: Date?, to: Date?) -> Bool {
        (from.map { date >= $0 } ?? true) && (to.map { date < $0 } ?? true)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
