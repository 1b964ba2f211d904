import Foundation

// The published language of `waypoint.notifications`: user-facing pushes that any service may publish and the gateway
// streams to the user's devices (`GET /v1/notifications/stream`, Server-Sent Events). Stream (Kafka key) of a
// notification: `notifications-<userId>` in the producing service's log, so one user's notifications stay in order.
//
// A notification is written for its recipient only: its title and body never carry another person's personal data
// (no names, no review or reply text) — only what the recipient may see about their own purchases and reviews — and
// its `data` holds ids the app uses to open the right screen.

/// What a notification is about: a stable, dotted, lower-case code clients switch on (also the SSE `event:` name).
///
/// Unknown kinds decode as they are (a new kind is a backward-compatible addition), so clients must ignore kinds they
/// do not know.
public struct NotificationKind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A purchase was paid: the buyer owns the tour (`data`: `tourId`, `purchaseId`).
    public static let purchaseConfirmed = NotificationKind(rawValue: "purchase.confirmed")
    /// A purchase was refunded: the buyer no longer owns the tour (`data`: `tourId`, `purchaseId`).
    public static let purchaseRefunded = NotificationKind(rawValue: "purchase.refunded")
    /// A moderator hid the recipient's review (`data`: `tourId`, `reviewId`).
    public static let reviewHidden = NotificationKind(rawValue: "review.hidden")
    /// The tour's guide replied to the recipient's review (`data`: `tourId`, `reviewId`).
    public static let reviewReplied = NotificationKind(rawValue: "review.replied")
    /// A moderator approved the recipient's path draft: it is on the network (`data`: `draftId`, `pathId` — the same id).
    public static let pathApproved = NotificationKind(rawValue: "path.approved")
    /// A moderator rejected the recipient's path draft, with a reason (`data`: `draftId`).
    public static let pathRejected = NotificationKind(rawValue: "path.rejected")
    /// A moderator sent the recipient's path draft back with the changes asked for (`data`: `draftId`).
    public static let pathChangesRequested = NotificationKind(rawValue: "path.changes-requested")
    /// Turn-by-turn guidance for the recipient's navigation session: an instruction is due (`data`: `sessionId`,
    /// `stepIndex`, `phase` — alert, pre-turn, now, depart, arrive — `maneuver`, `modifier`, `distanceM`).
    public static let navigationInstruction = NotificationKind(rawValue: "navigation.instruction")
    /// The recipient's session got a new route (`data`: `sessionId`, `reason`, `reroutes`, `distanceM`).
    public static let navigationRerouted = NotificationKind(rawValue: "navigation.rerouted")
    /// The recipient reached a tour stop (`data`: `sessionId`, `tourId`, `stopId`, `stopIndex`).
    public static let tourStopReached = NotificationKind(rawValue: "tour.stop-reached")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// A user is to be told something: one push notification for one user.
public struct UserNotified: IntegrationEvent {
    public static let eventType = "UserNotified"
    public static let schemaVersion = 1
    public static let topic = Topic.notifications

    /// The notification's id: also the event id, the SSE `id:` and what clients dedupe by. Producers derive it from
    /// the event that caused the notification, so producing it again yields the same id.
    public var notificationId: UUID
    /// The recipient.
    public var userId: UUID
    public var kind: NotificationKind
    /// One line, at most 100 characters, English (clients may localise by `kind`).
    public var title: String
    /// At most 300 characters, English; no other person's personal data.
    public var body: String
    /// Small string map of ids for the app (`tourId`, `purchaseId`, `reviewId`, …); at most 10 entries.
    public var data: [String: String]
    /// When the fact behind the notification happened (not when the notification was produced).
    public var occurredAt: Date

    public init(notificationId: UUID, userId: UUID, kind: NotificationKind, title: String, body: String, data: [String: String],
                occurredAt: Date) {
        self.notificationId = notificationId
        self.userId = userId
        self.kind = kind
        self.title = title
        self.body = body
        self.data = data
        self.occurredAt = occurredAt
    }
}
