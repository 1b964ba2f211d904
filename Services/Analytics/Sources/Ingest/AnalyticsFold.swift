import Contracts
import Crypto
import Foundation

/// How each fact changes the analytics tables — one pure function both backends execute, so SQLite and PostgreSQL
/// hold the same figures.
///
/// Every change is an increment of a counter keyed by (guide, UTC day, tour[, currency]), an insert into a set, or a
/// bounded insert, so the result does not depend on the order in which the topics' events interleave (the auth and
/// tours consumers run independently; on Kafka, streams of one topic interleave across partitions). Erasure is the one
/// cross-topic dependency, and it is made order-independent with the `analytics_erased` tombstones: an event applied
/// after its person's erasure is written exactly as the erasure would have rewritten it had it come first.
enum AnalyticsFold {
    /// What `analytics_erased` stores for an erased user: the first 128 bits of SHA-256 of the id, hex. Events arriving
    /// after an erasure are recognised by it, and even this table never holds the id itself.
    static func tombstone(_ userId: String) -> String {
        var userId = userId
        return AnalyticsBatch.hex(userId.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }.prefix(16))
    }

    /// The ids of `fact` whose erasure changes how it is written (its guide, and a signed-in viewer).
    static func idsToCheck(_ fact: AnalyticsFact) -> [String] {
        switch fact {
        case .viewed(_, let guide, _, let user?, _): [guide, user]
        case .riderTrip(_, let rider, _, _, _, _): [rider]
        default: fact.guideId.map { [$0] } ?? []
        }
    }

    /// The writes for `fact` (from the event `eventID`), given which of ``idsToCheck(_:)`` are erased.
    static func writes(_ fact: AnalyticsFact, eventID: UUID, erased: Set<String>) -> [AnalyticsWrite] {
        func guide(_ id: String) -> String { erased.contains(id) ? AnalyticsSchema.erasedGuide : id }
        func tourDay(_ guide: String, _ at: Int64, _ tour: String, views: Int64 = 0, checkouts: Int64 = 0, acquisitions: Int64 = 0,
                     starts: Int64 = 0, completions: Int64 = 0, reviews: Int64 = 0, publications: Int64 = 0) -> AnalyticsWrite {
            AnalyticsWrite(statement: .tourDay, arguments: [
                .text(guide), .day(UTCDay(microsecondsSince1970: at)), .text(tour), .int(views), .int(checkouts), .int(acquisitions),
                .int(starts), .int(completions), .int(reviews), .int(publications),
            ])
        }
        /// The activity entry and the trim that keeps the newest 50; none for an erased guide.
        func activity(_ guide: String, _ at: Int64, _ kind: ActivityKind, _ tour: String, amount: Amount? = nil,
                      rating: Int64? = nil) -> [AnalyticsWrite] {
            guard guide != AnalyticsSchema.erasedGuide else { return [] }
            return [
                AnalyticsWrite(statement: .activity, arguments: [
                    .text(guide), .int(at), .text(PayloadReader.text(eventID)), .text(kind.rawValue), .text(tour), .int(amount?.minor),
                    .text(amount?.currency), .int(rating),
                ]),
                AnalyticsWrite(statement: .activityTrim, arguments: [.text(guide)]),
            ]
        }
        func sales(_ guide: String, _ at: Int64, _ tour: String, _ currency: String, purchases: Int64 = 0, gross: Int64 = 0,
                   fee: Int64 = 0, earnings: Int64 = 0, refunds: Int64 = 0, refunded: Int64 = 0, refundedFee: Int64 = 0,
                   refundedEarnings: Int64 = 0) -> AnalyticsWrite {
            AnalyticsWrite(statement: .sales, arguments: [
                .text(guide), .day(UTCDay(microsecondsSince1970: at)), .text(tour), .text(currency), .int(purchases), .int(gross),
                .int(fee), .int(earnings), .int(refunds), .int(refunded), .int(refundedFee), .int(refundedEarnings),
            ])
        }
        func rating(_ tour: String, _ guide: String, sum: Int64, count: Int64) -> AnalyticsWrite {
            AnalyticsWrite(statement: .tourRating, arguments: [.text(tour), .text(guide), .int(sum), .int(count)])
        }

        switch fact {
        case let .registered(_, role, at):
            return [AnalyticsWrite(statement: .registration, arguments: [.day(UTCDay(microsecondsSince1970: at)), .text(role)])]
        case let .erased(user):
            let rekey: [SQLArg] = [.text(user), .text(AnalyticsSchema.erasedGuide)]
            return [
                AnalyticsWrite(statement: .eraseMark, arguments: [.text(tombstone(user))]),
                AnalyticsWrite(statement: .eraseViewers, arguments: [.text(user)]),
                AnalyticsWrite(statement: .eraseViewerGuides, arguments: rekey),
                AnalyticsWrite(statement: .eraseTours, arguments: rekey),
                AnalyticsWrite(statement: .eraseTourDays, arguments: rekey),
                AnalyticsWrite(statement: .eraseSales, arguments: rekey),
                AnalyticsWrite(statement: .eraseRiderTrips, arguments: [.text(user)]),
                AnalyticsWrite(statement: .eraseActivity, arguments: [.text(user)]),
            ]
        case let .published(tour, guideId, title, destination, price, at):
            let g = guide(guideId)
            return [
                AnalyticsWrite(statement: .tourDetails, arguments: [
                    .text(tour), .text(g), .text(title), .int(destination), .int(price.minor), .text(price.currency),
                    .day(UTCDay(microsecondsSince1970: at)),
                ]),
                tourDay(g, at, tour, publications: 1),
            ] + activity(g, at, .published, tour, amount: price)
        case let .unpublished(tour):
            return [AnalyticsWrite(statement: .tourUnlisted, arguments: [.text(tour)])]
        case let .viewed(tour, guideId, viewer, user, at):
            let g = guide(guideId)
            var writes = [tourDay(g, at, tour, views: 1)]
            if user.map({ !erased.contains($0) }) ?? true {
                writes.append(AnalyticsWrite(statement: .viewer, arguments: [
                    .text(g), .day(UTCDay(microsecondsSince1970: at)), .text(tour), .text(viewer), .text(user),
                ]))
            }
            return writes
        case let .checkoutStarted(tour, guideId, at):
            return [tourDay(guide(guideId), at, tour, checkouts: 1)]
        case let .purchased(tour, guideId, price, fee, earnings, at):
            let g = guide(guideId)
            return [sales(g, at, tour, price.currency, purchases: 1, gross: price.minor, fee: fee, earnings: earnings)]
                + activity(g, at, .purchase, tour, amount: price)
        case let .refunded(tour, guideId, amount, fee, earnings, at):
            let g = guide(guideId)
            return [sales(g, at, tour, amount.currency, refunds: 1, refunded: amount.minor, refundedFee: fee, refundedEarnings: earnings)]
                + activity(g, at, .refund, tour, amount: amount)
        case let .acquired(tour, guideId, at):
            let g = guide(guideId)
            return [tourDay(g, at, tour, acquisitions: 1)] + activity(g, at, .acquisition, tour)
        case let .reviewPosted(tour, guideId, stars, at):
            let g = guide(guideId)
            return [tourDay(g, at, tour, reviews: 1), rating(tour, g, sum: stars, count: 1)] + activity(g, at, .review, tour, rating: stars)
        case let .reviewEdited(tour, guideId, previous, stars, at):
            let g = guide(guideId)
            return [rating(tour, g, sum: stars - previous, count: 0)] + activity(g, at, .reviewEdited, tour, rating: stars)
        case let .reviewHidden(tour, guideId, stars, at):
            let g = guide(guideId)
            return [rating(tour, g, sum: -stars, count: -1)] + activity(g, at, .reviewHidden, tour, rating: stars)
        case let .started(tour, guideId, at):
            let g = guide(guideId)
            return [tourDay(g, at, tour, starts: 1)] + activity(g, at, .start, tour)
        case let .completed(tour, guideId, at):
            let g = guide(guideId)
            return [tourDay(g, at, tour, completions: 1)] + activity(g, at, .completion, tour)
        case let .riderTrip(trip, rider, at, distance, moving, gain):
            // An erased rider's ride is not kept (the tombstone: it arrived after the erasure).
            guard !erased.contains(rider) else { return [] }
            return [AnalyticsWrite(statement: .riderTrip, arguments: [
                .text(trip), .text(rider), .day(UTCDay(microsecondsSince1970: at)), .int(distance), .int(moving), .int(gain),
            ])]
        case let .tripDeleted(trip):
            return [AnalyticsWrite(statement: .riderTripDelete, arguments: [.text(trip)])]
        case let .bike(at, counters):
            return [bikeDay(at, counters)]
        case let .reviewClosed(draft, outcome, opened, closed):
            var writes = [bikeDay(closed, [.reviewsClosed])]
            if outcome != PathReviewOutcome.withdrawn.rawValue {
                writes.append(AnalyticsWrite(statement: .reviewDecision, arguments: [
                    .text(draft), .int(closed), .day(UTCDay(microsecondsSince1970: closed)), .text(outcome), .int((closed - opened) / 1_000),
                ]))
            }
            return writes
        }
    }

    /// One increment of each of `counters` on the UTC day of `at` (arguments: the day, then every counter in
    /// ``BikeCounter`` order).
    static func bikeDay(_ at: Int64, _ counters: [BikeCounter]) -> AnalyticsWrite {
        AnalyticsWrite(statement: .bikeDay, arguments: [.day(UTCDay(microsecondsSince1970: at))]
                       + BikeCounter.allCases.map { counter in .int(Int64(counters.filter { $0 == counter }.count)) })
    }
}

/// What a recent-activity entry reports. Views are not listed (they are counted): the feed would be nothing else.
public enum ActivityKind: String, Codable, Sendable, CaseIterable {
    case published, purchase, refund, acquisition, review
    case reviewEdited = "review-edited"
    case reviewHidden = "review-hidden"
    case start, completion
}
