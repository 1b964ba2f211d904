import Contracts
import EventSourcing
import Foundation
import Messaging

/// Which events of path-review's log notify someone, and what they are told: a pure function of one stored event,
/// the `rules` of path-review's ``UserNotifier`` (the notifications leave on `waypoint.notifications`, so the gateway's
/// push stream delivers them).
///
/// | event | recipient | kind |
/// |---|---|---|
/// | `PathReviewDecided` approve | the draft's author | `path.approved` |
/// | `PathReviewDecided` reject | the draft's author | `path.rejected` (the moderator's reason in the body) |
/// | `PathReviewDecided` send back | the draft's author | `path.changes-requested` (the changes asked for in the body) |
///
/// The moderator is never named. The notification id is derived from the decision's event id
/// (``UserNotifications/notificationID(for:)``), so deciding again gives the same bytes.
public enum PathNotificationRules {
    private static let triggers = EventTypeMap<PathReviewDecided>().registering(PathReviewDecided.self) { $0 }

    /// The events that can notify: the notifier reads and wakes for these only.
    public static let notifierTriggers = UserNotifier.Triggers(types: triggers.eventTypes)

    /// The notification `event` causes, or `nil` when it notifies nobody (a decision recorded without its author).
    ///
    /// - Throws: ``EventDecodingError`` when a decision's payload cannot be read (the notifier stops on it, loudly).
    public static func notification(for event: EventEnvelope) throws -> UserNotified? {
        guard let decision = try triggers.decode(event), let author = decision.authorId else { return nil }
        let id = UserNotifications.notificationID(for: event.eventID)
        let name = quoted(decision.name)
        let draft = decision.draftId.uuidString.lowercased()
        switch decision.outcome {
        case .approve:
            return UserNotified(notificationId: id, userId: author, kind: .pathApproved, title: "Your path was approved",
                                body: "\(name) is now part of the bike network: cyclists' routes can use it. Thank you!",
                                data: ["draftId": draft, "pathId": draft], occurredAt: decision.decidedAt)
        case .reject:
            return UserNotified(notificationId: id, userId: author, kind: .pathRejected, title: "Your path was not approved",
                                body: clipped("A moderator did not approve \(name). Reason: \(decision.note ?? "none given")"),
                                data: ["draftId": draft], occurredAt: decision.decidedAt)
        case .sendBack:
            return UserNotified(notificationId: id, userId: author, kind: .pathChangesRequested, title: "Changes requested on your path",
                                body: clipped("A moderator sent \(name) back to you. Asked for: \(decision.note ?? "see the draft")"),
                                data: ["draftId": draft], occurredAt: decision.decidedAt)
        }
    }

    /// The draft's name in quotes, shortened to 60 characters; "your path" without one.
    static func quoted(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "your path" }
        return "“\(name.count > 60 ? name.prefix(59) + "…" : Substring(name))”"
    }

    /// At most 300 characters (``UserNotified/body``'s limit): a longer note ends in an ellipsis.
    static func clipped(_ text: String) -> String {
        text.count > 300 ? String(text.prefix(299)) + "…" : text
    }
}
