import Contracts
import Crypto
import EventSourcing
import Foundation

extension UserNotified: EventPayload {}

/// Which events of tour-management's log notify someone, and what they are told: a pure function of one stored event.
///
/// | event | recipient | kind |
/// |---|---|---|
/// | `PurchaseCompleted` | the buyer | `purchase.confirmed` |
/// | `PurchaseRefunded` | the buyer | `purchase.refunded` |
/// | `ReviewHidden` with reason `moderation` | the review's author | `review.hidden` |
/// | `ReviewReplied` | the review's author (from the stream `review-<tourId>-<userId>`) | `review.replied` |
///
/// The notification id (and event id) is derived from the source event's id (``notificationID(for:)``), and every field
/// is taken from the source event, so deciding again gives the same bytes and an append of it is an idempotent retry.
public enum UserNotificationRules {
    /// The stream of a user's notifications in this service's log (and their Kafka key): `notifications-<userId>`.
    public static func streamID(user: UUID) -> String {
        "notifications-\(user.uuidString.lowercased())"
    }

    /// The name space of derived notification ids (a version 4 UUID fixed once, never changed).
    static let namespace = UUID(uuidString: "6f1d3c52-8b0e-4a57-9c1f-2d7e5a9b4c30")!

    /// The id of the notification caused by the event `sourceEventID`: a name-based UUID (RFC 9562 §5.5, version 5,
    /// SHA-1) of the text `user-notified:<source event id>` in ``namespace``.
    public static func notificationID(for sourceEventID: UUID) -> UUID {
        UUID.nameBased(namespace: namespace, name: "user-notified:\(sourceEventID.uuidString.lowercased())")
    }

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

extension UUID {
    /// A name-based UUID (RFC 9562 §5.5, version 5): the first 16 bytes of SHA-1(namespace ‖ name) with the version
    /// and variant bits set. The same namespace and name always give the same id.
    static func nameBased(namespace: UUID, name: String) -> UUID {
        var input = withUnsafeBytes(of: namespace.uuid) { Data($0) }
        input.append(contentsOf: Array(name.utf8))
        var bytes = Array(Insecure.SHA1.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
