import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The reactor that turns events of a service's own log into `UserNotified` events in the same log (stream
/// `notifications-<userId>`, ``UserNotifications/streamID(user:)``), which leave on `waypoint.notifications` (Kafka) or
/// through the embedded feed. Which events notify whom is the service's `rules`: a pure function of one stored event
/// (tour-management's purchases and reviews, path-review's review decisions).
///
/// It follows the log from its checkpoint `reactor:user_notifications` like a projection follows it, appends the
/// notifications of a batch (``UserNotificationRules``), then stores the checkpoint. A crash between the append and the
/// checkpoint repeats the batch: the notification's event id is derived from the source event's id
/// (``UserNotifications/notificationID(for:)``) and its payload from the source event alone, so the repeat is an idempotent retry and nothing is notified twice. A trigger whose
/// payload cannot be read stops the notifier loudly (error log, status failed, readiness 503); storage errors are
/// retried every second.
public final class UserNotifier: Service, Sendable {
    /// The checkpoint under which the reacted-to position is stored.
    public static let checkpointName = "reactor:user_notifications"

    /// The notification `event` causes, or `nil`; throws when a trigger's payload cannot be read.
    public typealias Rules = @Sendable (EventEnvelope) throws -> UserNotified?

    /// Which events the rules can notify on, so the notifier reads and wakes for those only: on a busy log (a
    /// `TourViewed` per catalogue view, a `PositionsTracked` per fix) a notifier of every event was woken by each
    /// append and read it, to pass it over.
    public struct Triggers: Sendable {
        /// The event types the rules can notify on; the rules return `nil` for every other type.
        public var types: Set<String>
        /// Of those, the committed events worth waking for: a quick test of the event as stored, `true` when it may
        /// notify (navigation: a `PositionsTracked` whose payload carries an instruction). An event it passes over is
        /// still read and decided on by the rules — at the next wake-up or poll — so a `false` delays a notification by
        /// at most the poll interval, never drops it.
        public var wakes: @Sendable (EventEnvelope) -> Bool

        public init(types: Set<String>, wakes: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true }) {
            self.types = types
            self.wakes = wakes
        }
    }

    let store: AnyEventStore
    let checkpoints: any CheckpointStore
    let rules: Rules
    let triggers: Triggers?
    let batchSize: Int
    let retryDelay: Duration
    let pollInterval: Duration
    let logger: Logger
    private let state = Mutex(ProjectionStatus.starting)

    /// Creates the notifier over a service's log and checkpoints, deciding with `rules` on the events `triggers` names
    /// (`nil`: on every event); when idle it re-reads the log every `pollInterval` (services make theirs with
    /// ``ServiceStorage/userNotifier(rules:triggers:logger:)``, which passes ``ServiceStorage/followerPollInterval``).
    public init(store: AnyEventStore, checkpoints: any CheckpointStore, rules: @escaping Rules, triggers: Triggers? = nil, batchSize: Int = 256,
                retryDelay: Duration = .seconds(1), pollInterval: Duration = .milliseconds(100),
                logger: Logger = Logger(label: "waypoint.user-notifier")) {
        self.store = store
        self.checkpoints = checkpoints
        self.rules = rules
        self.triggers = triggers
        self.batchSize = batchSize
        self.retryDelay = retryDelay
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Where the notifier stands (as a projection would: starting, catching up, live, failed).
    public var status: ProjectionStatus { state.withLock { $0 } }

    /// Runs until graceful shutdown: catch-up, then live.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.follow()
                    return
                } catch is CancellationError {
                    return
                } catch let failure as NotifierFailure {
                    self.logger.error("user notifier stopped", metadata: ["error": "\(failure)"])
                    return
                } catch {
                    self.logger.warning("user notifier failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: self.retryDelay)
                }
            }
        }
    }

    /// Reacts to everything currently in the log, then returns the position reached (tests, operator commands).
    @discardableResult
    public func catchUp() async throws -> Int64 {
        var position = try await checkpoints.position(of: Self.checkpointName)
        while true {
            let batch = try await store.readAll(after: position, limit: batchSize)
            guard let last = batch.last else { return position }
            try await react(to: batch)
            position = last.position
            try await checkpoints.save(position, for: Self.checkpointName)
        }
    }

    /// Follows the log from the checkpoint: reads the trigger types only when ``triggers`` names them (the others are
    /// passed over in the database, not copied), and waits for the appends `triggers.wakes` accepts; the checkpoint is
    /// the last position read.
    private func follow() async throws {
        var position = try await checkpoints.position(of: Self.checkpointName)
        let start = position
        state.withLock { $0 = .catchingUp(position: start) }
        var saved = (position: position, at: ContinuousClock.now)
        while !Task.isCancelled {
            let page = try await read(after: position)
            guard page.scanned > position else {
                let reached = position
                state.withLock { $0 = .live(position: reached) }
                // Idle: the positions passed over since the last save are stored before waiting (a quiet log's head).
                if position > saved.position {
                    try await checkpoints.save(position, for: Self.checkpointName)
                    saved = (position, .now)
                }
                await waitForAppends(after: position)
                continue
            }
            let notified = try await react(to: page.events)
            let before = position
            position = page.scanned
            // A batch that notified nobody moves the checkpoint at most once per `quietCheckpointInterval`: repeating
            // such events after a restart notifies nobody again, and a busy log (a position update per fix) is spared
            // a durable write per batch.
            if notified > 0 || ContinuousClock.now - saved.at >= Self.quietCheckpointInterval {
                try await checkpoints.save(position, for: Self.checkpointName)
                saved = (position, .now)
            }
            // A full page (or a read that stopped at its scan bound) says the log goes on.
            let reached = position
            let full = page.events.count == batchSize || page.scanned - before >= Int64(TypedPage.scanLimit)
            state.withLock { $0 = full ? .catchingUp(position: reached) : .live(position: reached) }
        }
    }

    /// The next events to decide on after `position` and how far the read went: the trigger types, or every event.
    private func read(after position: Int64) async throws -> TypedPage {
        if let triggers { return try await store.readAll(after: position, limit: batchSize, types: triggers.types) }
        let batch = try await store.readAll(after: position, limit: batchSize)
        return TypedPage(events: batch, scanned: batch.last?.position ?? position)
    }

    /// Until an append that may notify (any append without ``triggers``), or ``pollInterval``.
    private func waitForAppends(after position: Int64) async {
        if let triggers {
            await store.waitForAppends(after: position, types: triggers.types, where: triggers.wakes, timeout: pollInterval)
        } else {
            await store.waitForAppends(after: position, timeout: pollInterval)
        }
    }

    /// Longest time the checkpoint stays behind events that notified nobody.
    static let quietCheckpointInterval: Duration = .seconds(1)

    /// Reacts to `batch`; returns the notifications appended.
    @discardableResult
    private func react(to batch: [EventEnvelope]) async throws -> Int {
        var notified = 0
        for event in batch {
            let notification: UserNotified
            do {
                guard let decided = try rules(event) else { continue }
                notification = decided
            } catch {
                let reason = "\(error)"
                state.withLock { $0 = .failed(position: $0.position, eventPosition: event.position, reason: reason) }
                throw NotifierFailure(eventPosition: event.position, eventType: event.eventType, reason: reason)
            }
            try await append(notification, causedBy: event)
            notified += 1
        }
        return notified
    }

    private func append(_ notification: UserNotified, causedBy source: EventEnvelope) async throws {
        let metadata = EventMetadata(correlationID: source.metadata.correlationID ?? source.eventID, causationID: source.eventID,
                                     actorID: "system:user-notifier", traceparent: source.metadata.traceparent)
        let event = try notification.newEvent(id: notification.notificationId, metadata: metadata)
        do {
            try await store.append(event, to: UserNotifications.streamID(user: notification.userId), expectedVersion: .any)
        } catch EventStoreError.duplicateEventID {
            // Appended before with other content (an older wording of the rules): that one stands.
            logger.notice("notification already appended with other content; keeping the stored one",
                          metadata: ["notification": "\(notification.notificationId)", "source": "\(source.eventID)"])
        }
    }
}

/// A trigger event the notifier cannot read: it stops rather than skip a notification silently.
struct NotifierFailure: Error, CustomStringConvertible {
    var eventPosition: Int64
    var eventType: String
    var reason: String

    var description: String { "cannot react to event \(eventPosition) (\(eventType)): \(reason)" }
}

extension Readiness {
    /// Makes `/health/ready` answer 503 while the notifier is stopped on an event it cannot read.
    public func register(_ notifier: UserNotifier) {
        register("reactor.user_notifications") {
            if case .failed(let position, let eventPosition, let reason) = notifier.status {
                return .notReady("stopped at position \(position) on event \(eventPosition): \(reason)")
            }
            return .ready
        }
    }
}
