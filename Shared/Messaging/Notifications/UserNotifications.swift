import Contracts
import Crypto
import EventSourcing
import Foundation

extension UserNotified: EventPayload {}

/// Where a service keeps the `UserNotified` events of its ``UserNotifier`` and how their ids are derived — the same in
/// every producing service (tour-management, path-review), so the gateway's push stream sees one scheme.
public enum UserNotifications {
    /// The stream of a user's notifications in a service's log (and their Kafka key): `notifications-<userId>`.
    public static func streamID(user: UUID) -> String {
        "notifications-\(user.uuidString.lowercased())"
    }

    /// The name space of derived notification ids (a version 4 UUID fixed once, never changed).
    static let namespace = UUID(uuidString: "6f1d3c52-8b0e-4a57-9c1f-2d7e5a9b4c30")!

    /// The id of the notification caused by the event `sourceEventID`: a name-based UUID (RFC 9562 §5.5, version 5,
    /// SHA-1) of the text `user-notified:<source event id>` in ``namespace``. Event ids are unique across the services'
    /// logs, so one name space serves every producer.
    public static func notificationID(for sourceEventID: UUID) -> UUID {
        UUID.nameBased(namespace: namespace, name: "user-notified:\(sourceEventID.uuidString.lowercased())")
    }

    /// Whether the envelope is a notification (what a producer relays to `waypoint.notifications`).
    public static func isNotification(_ envelope: EventEnvelope) -> Bool { envelope.eventType == UserNotified.eventType }
}

extension UUID {
    /// A name-based UUID (RFC 9562 §5.5, version 5): the first 16 bytes of SHA-1(namespace ‖ name) with the version
    /// and variant bits set. The same namespace and name always give the same id.
    public static func nameBased(namespace: UUID, name: String) -> UUID {
        var input = withUnsafeBytes(of: namespace.uuid) { Data($0) }
        input.append(contentsOf: Array(name.utf8))
        var bytes = Array(Insecure.SHA1.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
