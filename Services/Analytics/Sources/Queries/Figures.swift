import Foundation

// The answers of the analytics API. Money is integer minor units with its ISO 4217 currency, and figures of different
// currencies are never added up: every money figure is a list with one entry per currency.

/// Sales of one currency.
public struct CurrencySales: Codable, Sendable, Hashable {
    public var currency: String
    /// Completed purchases.
    public var purchases: Int64
    /// What travellers paid.
    public var grossMinor: Int64
    /// The platform's share of `grossMinor`.
    public var platformFeeMinor: Int64
    /// The guides' share of `grossMinor` (gross − platform fee).
    public var earningsMinor: Int64
    /// Refunded purchases.
    public var refunds: Int64
    /// What went back to travellers.
    public var refundedMinor: Int64
    /// The platform fee given back.
    public var refundedPlatformFeeMinor: Int64
    /// The guide earnings reversed.
    public var refundedEarningsMinor: Int64
    /// `earningsMinor − refundedEarningsMinor`.
    public var netEarningsMinor: Int64

    init(currency: String) {
        self.currency = currency
        purchases = 0
        grossMinor = 0
        platformFeeMinor = 0
        earningsMinor = 0
        refunds = 0
        refundedMinor = 0
        refundedPlatformFeeMinor = 0
        refundedEarningsMinor = 0
        netEarningsMinor = 0
    }

    mutating func add(_ other: CurrencySales) {
        purchases += other.purchases
        grossMinor += other.grossMinor
        platformFeeMinor += other.platformFeeMinor
        earningsMinor += other.earningsMinor
        refunds += other.refunds
        refundedMinor += other.refundedMinor
        refundedPlatformFeeMinor += other.refundedPlatformFeeMinor
        refundedEarningsMinor += other.refundedEarningsMinor
        netEarningsMinor = earningsMinor - refundedEarningsMinor
    }
}

/// An amount of one currency.
public struct CurrencyAmount: Codable, Sendable, Hashable {
    public var currency: String
    public var amountMinor: Int64
}

/// The all-time rating: visible reviews only (hidden ones stop counting; edits move the rating).
public struct RatingFigures: Codable, Sendable, Hashable {
    /// Mean stars, 2 decimals; `null` without reviews.
    public var average: Double?
    public var count: Int64
}

/// The figures of one tour (or of all of a guide's tours) over a range.
public struct TourFigures: Codable, Sendable, Hashable {
    public var tourId: String
    /// From the last `TourPublished`; `null` while analytics has not seen a publication.
    public var title: String?
    public var listed: Bool
    public var views: Int64
    public var uniqueViewers: Int64
    public var checkouts: Int64
    public var purchases: Int64
    public var acquisitions: Int64
    /// `(purchases + acquisitions) / uniqueViewers`, 4 decimals; `null` without viewers.
    public var conversionRate: Double?
    public var sales: [CurrencySales]
    public var refunds: Int64
    public var rating: RatingFigures
    /// Reviews posted in the range.
    public var reviews: Int64
    public var starts: Int64
    public var completions: Int64
    /// `completions / starts`, 4 decimals; `null` without starts.
    public var completionRate: Double?
}

/// Net earnings of one calendar month, per currency.
public struct MonthEarnings: Codable, Sendable, Hashable {
    /// `YYYY-MM`.
    public var month: String
    public var netEarnings: [CurrencyAmount]
}

/// A tour of the top list.
public struct TopTour: Codable, Sendable, Hashable {
    public var tourId: String
    public var title: String?
    public var purchases: Int64
    public var acquisitions: Int64
    public var views: Int64
    public var netEarnings: [CurrencyAmount]
}

/// One entry of the recent-activity feed: what happened to which tour, never who did it.
public struct ActivityEntry: Codable, Sendable, Hashable {
    public var at: Date
    public var kind: ActivityKind
    public var tourId: String
    public var tourTitle: String?
    /// The price of a publication or purchase, the amount of a refund.
    public var amount: CurrencyAmount?
    /// The stars of a review.
    public var rating: Int64?
}

/// `GET /v1/analytics/guides/me/summary`.
public struct GuideSummary: Codable, Sendable, Hashable {
    public var guideId: String
    /// `YYYY-MM-DD`, UTC, included.
    public var from: String
    /// `YYYY-MM-DD`, UTC, included.
    public var to: String
    public var views: Int64
    /// Distinct viewer keys over the whole range (not a sum of daily figures).
    public var uniqueViewers: Int64
    public var checkouts: Int64
    public var purchases: Int64
    public var acquisitions: Int64
    public var conversionRate: Double?
    public var sales: [CurrencySales]
    public var refunds: Int64
    public var rating: RatingFigures
    public var reviews: Int64
    public var starts: Int64
    public var completions: Int64
    public var completionRate: Double?
    /// Every tour of the guide (and any tour with figures in the range), most purchased first.
    public var tours: [TourFigures]
    /// The 12 calendar months up to `to`'s month, oldest first.
    public var earningsByMonth: [MonthEarnings]
    /// Up to 5 tours with figures in the range, most purchased (then most viewed) first.
    public var topTours: [TopTour]
    /// The guide's 50 newest events (views are counted, not listed).
    public var recentActivity: [ActivityEntry]
}

/// One day of a tour's series.
public struct TourDay: Codable, Sendable, Hashable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var views: Int64
    public var uniqueViewers: Int64
    public var checkouts: Int64
    public var purchases: Int64
    public var acquisitions: Int64
    public var starts: Int64
    public var completions: Int64
}

/// `GET /v1/analytics/tours/{id}`.
public struct TourAnalytics: Codable, Sendable, Hashable {
    public var guideId: String
    public var from: String
    public var to: String
    public var figures: TourFigures
    /// Every day of the range, oldest first.
    public var days: [TourDay]
    /// The 12 calendar months up to `to`'s month.
    public var earningsByMonth: [MonthEarnings]
}

/// Registrations of one day, by the role registered with.
public struct RegistrationDay: Codable, Sendable, Hashable {
    public var date: String
    public var byRole: [String: Int64]
}

/// A destination of the top list (GeoNames id; names come from tour-management's `/v1/destinations/{id}`).
public struct TopDestination: Codable, Sendable, Hashable {
    public var destinationId: Int64
    public var views: Int64
    public var purchases: Int64
    public var acquisitions: Int64
    public var completions: Int64
    public var gross: [CurrencyAmount]
}

/// Views → checkouts → purchases (paid + free) → starts → completions.
public struct PurchaseFunnel: Codable, Sendable, Hashable {
    public var views: Int64
    public var checkouts: Int64
    public var purchases: Int64
    public var acquisitions: Int64
    public var starts: Int64
    public var completions: Int64
    /// `(purchases + acquisitions) / views`, 4 decimals.
    public var viewToPurchaseRate: Double?
    /// `completions / (purchases + acquisitions)`, 4 decimals.
    public var purchaseToCompletionRate: Double?
}

/// `GET /v1/analytics/platform`.
public struct PlatformFigures: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    public var registrations: [RegistrationDay]
    public var registrationsByRole: [String: Int64]
    /// Guides whose tours had any activity (view, purchase, acquisition, start, completion, review, publication) in the range.
    public var activeGuides: Int64
    /// Guides with at least one listed tour now.
    public var guidesWithListedTours: Int64
    public var sales: [CurrencySales]
    /// Up to 10, most purchased (then most viewed) first.
    public var topDestinations: [TopDestination]
    public var funnel: PurchaseFunnel
}

/// Rounds a rate to 4 decimals; `nil` for a zero denominator.
func rate(_ numerator: Int64, _ denominator: Int64, decimals: Double = 10_000) -> Double? {
    guard denominator > 0 else { return nil }
    return (Double(numerator) / Double(denominator) * decimals).rounded() / decimals
}
