import Contracts
import EventSourcing
import Foundation
import Messaging

/// An amount in one currency, in minor units (never summed across currencies).
struct Amount: Sendable, Hashable {
    var minor: Int64
    var currency: String
}

/// What analytics takes from one event of the published language — the fields it needs, already validated. Ids are
/// canonical lower-case UUID text; times are microseconds since 1970 (UTC).
enum AnalyticsFact: Sendable, Hashable {
    case registered(userId: String, role: String, at: Int64)
    case erased(userId: String)
    case published(tourId: String, guideId: String, title: String, destinationId: Int64, price: Amount, at: Int64)
    case unpublished(tourId: String)
    case viewed(tourId: String, guideId: String, viewer: String, userId: String?, at: Int64)
    case checkoutStarted(tourId: String, guideId: String, at: Int64)
    case purchased(tourId: String, guideId: String, price: Amount, fee: Int64, earnings: Int64, at: Int64)
    case refunded(tourId: String, guideId: String, amount: Amount, fee: Int64, earnings: Int64, at: Int64)
    case acquired(tourId: String, guideId: String, at: Int64)
    case reviewPosted(tourId: String, guideId: String, rating: Int64, at: Int64)
    case reviewEdited(tourId: String, guideId: String, previousRating: Int64, rating: Int64, at: Int64)
    case reviewHidden(tourId: String, guideId: String, rating: Int64, at: Int64)
    case started(tourId: String, guideId: String, at: Int64)
    case completed(tourId: String, guideId: String, at: Int64)
    /// A finished ride of a known rider (`TripFinished` with its rider): figures in whole millimetres and milliseconds, the
    /// time it counts at (the ride's start hour, else its finish).
    case riderTrip(tripId: String, riderId: String, at: Int64, distanceMM: Int64, movingMS: Int64, elevationGainMM: Int64)
    case tripDeleted(tripId: String)
    /// Increments of the platform's bike counters on the UTC day of `at`.
    case bike(at: Int64, counters: [BikeCounter])
    /// A draft left the review queue (`PathReviewClosed`).
    case reviewClosed(draftId: String, outcome: String, openedAt: Int64, closedAt: Int64)

    /// The guide the fact is about, if any.
    var guideId: String? {
        switch self {
        case .registered, .erased, .unpublished, .riderTrip, .tripDeleted, .bike, .reviewClosed: nil
        case .published(_, let guide, _, _, _, _), .viewed(_, let guide, _, _, _), .checkoutStarted(_, let guide, _),
             .purchased(_, let guide, _, _, _, _), .refunded(_, let guide, _, _, _, _), .acquired(_, let guide, _),
             .reviewPosted(_, let guide, _, _), .reviewEdited(_, let guide, _, _, _), .reviewHidden(_, let guide, _, _),
             .started(_, let guide, _), .completed(_, let guide, _): guide
        }
    }
}

/// The event types analytics applies, their schema versions, and how each is read. Every other type — on any topic —
/// is ignored (tolerant reader). A
/// type listed here whose payload cannot be read, or that arrives with another schema version, throws: the consumer
/// stops loudly and the batch is not committed.
enum AnalyticsEvents {
    /// Reads a payload: the fact, or `nil` when the event says nothing analytics keeps (a ride with no rider known).
    typealias Reader = @Sendable (PayloadReader) throws -> AnalyticsFact?

    /// The marketplace's types (auth, tours) and the bike side's (`AnalyticsEvents+Bike.swift`).
    static let readers: [String: (schemaVersion: Int, read: Reader)] = tourReaders.merging(bikeReaders) { first, _ in first }

    static let tourReaders: [String: (schemaVersion: Int, read: Reader)] = [
        UserRegistered.eventType: (UserRegistered.schemaVersion, { p in
            let role = try p.string("role")
            guard UserRole(rawValue: role) != nil else { throw PayloadError.field("role", "unknown role '\(role)'") }
            return .registered(userId: try p.uuid("userId"), role: role, at: try p.timestamp("registeredAt"))
        }),
        UserErased.eventType: (UserErased.schemaVersion, { p in .erased(userId: try p.uuid("userId")) }),
        TourPublished.eventType: (TourPublished.schemaVersion, { p in
            let details = try p.object("details")
            let price = try details.money("price")
            return .published(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), title: try details.string("title"),
                              destinationId: try details.int("destinationId"), price: Amount(minor: price.amountMinor, currency: price.currency),
                              at: try p.timestamp("publishedAt"))
        }),
        TourUnpublished.eventType: (TourUnpublished.schemaVersion, { p in .unpublished(tourId: try p.uuid("tourId")) }),
        TourViewed.eventType: (TourViewed.schemaVersion, { p in
            let viewer = try p.string("viewer")
            guard !viewer.isEmpty, viewer.utf8.count <= 200 else { throw PayloadError.field("viewer", "empty or longer than 200 bytes") }
            return .viewed(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), viewer: viewer,
                           userId: try p.optionalUUID("userId") ?? signedInUser(viewer), at: try p.timestamp("viewedAt"))
        }),
        PurchaseStarted.eventType: (PurchaseStarted.schemaVersion, { p in
            .checkoutStarted(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), at: try p.timestamp("startedAt"))
        }),
        PurchaseCompleted.eventType: (PurchaseCompleted.schemaVersion, { p in
            let (price, fee, earnings) = try amounts(p, total: "price")
            return .purchased(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), price: price, fee: fee, earnings: earnings,
                              at: try p.timestamp("completedAt"))
        }),
        PurchaseRefunded.eventType: (PurchaseRefunded.schemaVersion, { p in
            let (amount, fee, earnings) = try amounts(p, total: "amount")
            return .refunded(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), amount: amount, fee: fee, earnings: earnings,
                             at: try p.timestamp("refundedAt"))
        }),
        TourAcquired.eventType: (TourAcquired.schemaVersion, { p in
            .acquired(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), at: try p.timestamp("acquiredAt"))
        }),
        ReviewPosted.eventType: (ReviewPosted.schemaVersion, { p in
            .reviewPosted(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), rating: try rating(p, "rating"),
                          at: try p.timestamp("postedAt"))
        }),
        ReviewEdited.eventType: (ReviewEdited.schemaVersion, { p in
            .reviewEdited(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), previousRating: try rating(p, "previousRating"),
                          rating: try rating(p, "rating"), at: try p.timestamp("editedAt"))
        }),
        ReviewHidden.eventType: (ReviewHidden.schemaVersion, { p in
            .reviewHidden(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), rating: try rating(p, "rating"),
                          at: try p.timestamp("hiddenAt"))
        }),
        TourStarted.eventType: (TourStarted.schemaVersion, { p in
            .started(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), at: try p.timestamp("startedAt"))
        }),
        TourCompleted.eventType: (TourCompleted.schemaVersion, { p in
            .completed(tourId: try p.uuid("tourId"), guideId: try p.uuid("guideId"), at: try p.timestamp("completedAt"))
        }),
    ]

    /// The fact in `event`, or `nil` for a type analytics does not apply.
    /// - Throws: ``EventDecodingError`` for a type analytics applies whose schema version or payload it cannot read.
    static func fact(_ event: PublishedEvent) throws -> AnalyticsFact? {
        guard let reader = readers[event.eventType] else { return nil }
        guard event.schemaVersion == reader.schemaVersion else {
            throw EventDecodingError.unsupportedSchemaVersion(eventType: event.eventType, found: event.schemaVersion,
                                                              expected: reader.schemaVersion)
        }
        do {
            return try reader.read(PayloadReader(event.payload))
        } catch {
            throw EventDecodingError.undecodablePayload(eventType: event.eventType, position: event.position, reason: "\(error)")
        }
    }

    /// `user:<uuid>` viewers are signed-in users (tour-management's viewer keys); anything else is anonymous.
    static func signedInUser(_ viewer: String) -> String? {
        guard viewer.hasPrefix("user:") else { return nil }
        let id = viewer.dropFirst(5)
        return UUID(uuidString: String(id)).map { $0.uuidString.lowercased() }
    }

    private static func rating(_ p: PayloadReader, _ key: String) throws -> Int64 {
        let value = try p.int(key)
        guard (1...5).contains(value) else { throw PayloadError.field(key, "rating \(value) outside 1…5") }
        return value
    }

    /// The total, platform fee and guide earnings of a purchase or refund, which must share one currency.
    private static func amounts(_ p: PayloadReader, total: String) throws -> (Amount, Int64, Int64) {
        let price = try p.money(total)
        let fee = try p.money("platformFee")
        let earnings = try p.money("guideEarnings")
        guard fee.currency == price.currency, earnings.currency == price.currency else {
            throw PayloadError.field("platformFee", "currencies of \(total), platformFee and guideEarnings differ")
        }
        return (Amount(minor: price.amountMinor, currency: price.currency), fee.amountMinor, earnings.amountMinor)
    }
}
