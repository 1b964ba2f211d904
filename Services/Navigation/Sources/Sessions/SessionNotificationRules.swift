import Contracts
import EventSourcing
import Foundation
import Messaging
import RoadNetwork

/// Pushed guidance (DESIGN: "a navigation position update is answered at once and the same instruction is pushed on
/// the rider's stream"): each instruction a session gives — the departure, an announcement, the arrival — and each
/// reroute becomes a `UserNotified` for the rider, `navigation.instruction` / `navigation.rerouted`, with the
/// instruction as title and the ids and figures in `data`. A session event notifies at most once.
///
/// Most session events are one `PositionsTracked` per position update, and most of those carry no instruction: they
/// are passed over before decoding (``mayNotify(_:)``), as are the event types that never notify.
public enum SessionNotificationRules {
    /// The event types that can notify.
    static let types: Set<String> = [SessionStarted.eventType, PositionsTracked.eventType, SessionRerouted.eventType, StopReached.eventType]
    /// The key of `PositionsTracked.instruction` as the canonical encoder writes it (an absent instruction is no key).
    private static let instructionKey = Data(#""instruction""#.utf8)

    /// The notifier reads only the types that can notify, and wakes only for the events that may (``mayNotify(_:)``):
    /// a position update without an instruction — nearly every one — no longer wakes it.
    public static let notifierTriggers = UserNotifier.Triggers(types: types, wakes: mayNotify)

    /// Whether `envelope` can notify, without decoding it: a type that can, and for `PositionsTracked` a payload with an
    /// instruction. A payload without the key has no instruction; one with it is decoded (and may still have none).
    static func mayNotify(_ envelope: EventEnvelope) -> Bool {
        guard types.contains(envelope.eventType) else { return false }
        return envelope.eventType != PositionsTracked.eventType || envelope.payload.range(of: instructionKey) != nil
    }

    public static func notification(for envelope: EventEnvelope) throws -> UserNotified? {
        guard mayNotify(envelope), let event = try NavigationSessionAggregate.eventTypes.decode(envelope) else { return nil }
        switch event {
        case .started(let e):
            return instruction(e.instruction, session: e.sessionId, rider: e.riderId, source: envelope, at: e.startedAt)
        case .tracked(let e):
            return e.instruction.map { instruction($0, session: e.sessionId, rider: e.riderId, source: envelope, at: e.lastFixAt) }
        case .rerouted(let e):
            return UserNotified(notificationId: UserNotifications.notificationID(for: envelope.eventID), userId: e.riderId, kind: .navigationRerouted,
                                title: String(e.instruction.text.prefix(100)),
                                body: String("New route: \(Int(e.route.distance.rounded())) m. \(e.instruction.text)".prefix(300)),
                                data: ["sessionId": e.sessionId.uuidString.lowercased(), "reason": e.reason.rawValue, "reroutes": "\(e.reroutes)",
                                       "distanceM": "\(Int(e.route.distance.rounded()))", "phase": "depart", "stepIndex": "0"],
                                occurredAt: e.reroutedAt)
        case .stopReached(let e):
            var data = ["sessionId": e.sessionId.uuidString.lowercased(), "tourId": e.tourId.uuidString.lowercased(),
                        "stopId": e.stopId.uuidString.lowercased(), "stopIndex": "\(e.stopIndex)"]
            var body = "You reached \(e.name)."
            if let next = e.nextStopId, let name = e.nextStopName, let metres = e.nextStopDistanceM {
                data["nextStopId"] = next.uuidString.lowercased()
                data["nextStopDistanceM"] = "\(Int(metres.rounded()))"
                body += " Next: \(name), \(StepInstructions.spoken(metres))."
            }
            return UserNotified(notificationId: UserNotifications.notificationID(for: envelope.eventID), userId: e.riderId, kind: .tourStopReached,
                                title: String("Stop reached: \(e.name)".prefix(100)), body: String(body.prefix(300)), data: data, occurredAt: e.reachedAt)
        case .publishedStart, .publishedReroute, .paused, .resumed, .arrived, .ended, .publishedStop:
            return nil
        }
    }

    static func instruction(_ instruction: IssuedInstruction, session: UUID, rider: UUID, source: EventEnvelope, at: Date) -> UserNotified {
        var data = ["sessionId": session.uuidString.lowercased(), "stepIndex": "\(instruction.stepIndex)", "phase": instruction.phase,
                    "maneuver": instruction.maneuver, "distanceM": "\(Int(instruction.distance.rounded()))"]
        if let modifier = instruction.modifier { data["modifier"] = modifier }
        return UserNotified(notificationId: UserNotifications.notificationID(for: source.eventID), userId: rider, kind: .navigationInstruction,
                            title: String(instruction.text.prefix(100)), body: String(instruction.text.prefix(300)), data: data, occurredAt: at)
    }
}
