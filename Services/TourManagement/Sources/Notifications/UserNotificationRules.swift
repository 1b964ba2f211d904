import Contracts
import EventSourcing
import Foundation
import Messaging

/// Which events of tour-management's log notify someone, and what they are told: a pure function of one stored event.
///
/// | event | recipient | kind |
/// |---|---|---|
/// | `PurchaseCompleted` | the buyer | `purchase.confirmed` |
/// | `PurchaseRefunded` | the buyer | `purchase.refunded` |
/// | `ReviewHidden` with reason `moderation` | the review's author | `review.hidden` |
/// | `ReviewReplied` | the review's author (from the stream `review-<tourId>-<userId>`) | `review.replied` |
///
/// The notification id (and event id) is derived from the source event's id (``UserNotifications/notificationID(for:)``), and every field
/// is taken from the source event, so deciding again gives the same bytes and an append of it is an idempotent retry.
public enum UserNotificationRules {
    /// The stream of a user's notifications (``UserNotifications/streamID(user:)``).
    public static func streamID(user: UUID) -> String { UserNotifications.streamID(user: user) }

    /// The id of the notification caused by the event `sourceEventID` (``UserNotifications/notificationID(for:)``).
    public static func notificationID(for sourceEventID: UUID) -> UUID { UserNotifications.notificationID(for: sourceEventID) }

    private enum Trigger: Sendable {
        case purchaseCompleted(PurchaseCompleted)
        case purchaseRefunded(PurchaseRefunded)
        case reviewHidden(ReviewHidden)
        case reviewReplied(ReviewReplied)
    }

    private static let triggers = EventTypeMap<Trigger>()
        .registering(PurchaseCompleted.self) { .purchaseCompleted($0) }
        .registering(PurchaseRefunded.self) { .purchaseRefunded($0) }
        .registering(ReviewHidden.self) { .reviewHidden($0) }
        .registering(ReviewReplied.self) { .reviewReplied($0) }

    /// The events that can notify: the notifier reads and wakes for these only.
    public static let notifierTriggers = UserNotifier.Triggers(types: triggers.eventTypes)

    /// The notification `event` causes, or `nil` when it notifies nobody.
    ///
    /// - Throws: ``EventDecodingError`` when a trigger's payload cannot be read (the notifier stops on it, loudly).
    public static func notification(for event: EventEnvelope) throws -> UserNotified? {
        guard let trigger = try triggers.decode(event) else { return nil }
        let id = notificationID(for: event.eventID)
        switch trigger {
        case .purchaseCompleted(let purchase):
            return UserNotified(
                notificationId: id, userId: purchase.userId, kind: .purchaseConfirmed, title: "Purchase confirmed",
                body: "Your payment of \(format(purchase.price)) went through: the tour is yours to download and walk.",
                data: ["tourId": text(purchase.tourId), "purchaseId": text(purchase.purchaseId)], occurredAt: purchase.completedAt)
        case .purchaseRefunded(let refund):
            return UserNotified(
                notificationId: id, userId: refund.userId, kind: .purchaseRefunded, title: "Purchase refunded",
                body: "\(format(refund.amount)) is on its way back to you. The tour is no longer in your library.",
                data: ["tourId": text(refund.tourId), "purchaseId": text(refund.purchaseId)], occurredAt: refund.refundedAt)
        case .reviewHidden(let hidden):
            // An erased author is not told anything: there is no one to tell.
            guard hidden.reason == ReviewEvents.hiddenByModeration else { return nil }
            return UserNotified(
                notificationId: id, userId: hidden.userId, kind: .reviewHidden, title: "Your review was hidden",
                body: "A moderator hid your review after it was reported. It no longer shows or counts in the tour's rating.",
                data: ["tourId": text(hidden.tourId), "reviewId": text(hidden.reviewId)], occurredAt: hidden.hiddenAt)
        case .reviewReplied(let reply):
            guard let author = reviewAuthor(streamID: event.streamID, tour: reply.tourId) else { return nil }
            return UserNotified(
                notificationId: id, userId: author, kind: .reviewReplied, title: "The guide replied to your review",
                body: "The tour's guide answered your review. Open the tour to read the reply.",
                data: ["tourId": text(reply.tourId), "reviewId": text(reply.reviewId)], occurredAt: reply.repliedAt)
        }
    }

    /// The author in a review stream's name, `review-<tourId>-<userId>`.
    static func reviewAuthor(streamID: String, tour: UUID) -> UUID? {
        let prefix = "review-\(tour.uuidString.lowercased())-"
        guard streamID.hasPrefix(prefix) else { return nil }
        return UUID(uuidString: String(streamID.dropFirst(prefix.count)))
    }

    /// `12.99 EUR`: the amount in major units with the currency's own number of decimals (no locale, so every
    /// run writes the same text).
    static func format(_ money: Money) -> String {
        let digits = money.currency.minorUnitExponent
        guard digits > 0 else { return "\(money.amountMinor) \(money.currency.code)" }
        let scale = UInt64(money.currency.minorUnitsPerMajorUnit)
        let magnitude = money.amountMinor.magnitude
        let fraction = String(magnitude % scale)
        let padded = String(repeating: "0", count: digits - fraction.count) + fraction
        return "\(money.amountMinor < 0 ? "-" : "")\(magnitude / scale).\(padded) \(money.currency.code)"
    }

    private static func text(_ id: UUID) -> String { id.uuidString.lowercased() }
}
