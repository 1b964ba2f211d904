import Contracts
import Foundation
import Logging
import Metrics
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The gateway's push hub: consumes `UserNotified` events (``NotificationHubConfiguration/Transport``), keeps each
/// recent user's newest notifications in memory for `Last-Event-ID` resume, and fans new ones out to that user's open
/// streams. The gateway has no database: after a restart the hub rebuilds its buffers by reading the notifications
/// again from the start (Kafka's retention, the producers' logs), bounded by ``NotificationHubConfiguration``.
///
/// Run it as one of the gateway's background services; mount the stream with ``addNotificationStreamRoute(to:path:hub:userID:)``.
public final class NotificationHub: Service, Sendable {
    /// The configuration it was created with.
    public let configuration: NotificationHubConfiguration
    let logger: Logger
    let now: @Sendable () -> Date

    struct State: Sendable {
        var buffers: NotificationBuffers
        var subscribers: [UUID: [NotificationSubscription]] = [:]
        var nextSubscriptionID = 0
        var status = NotificationHubStatus.starting(lastError: nil)
        var isShutDown = false
        /// Whether the erasure reader has its starting point (tests wait for it before erasing someone).
        var followsErasures = false
    }

    let state: Mutex<State>

    /// Creates the hub; nothing is read before ``run()``.
    public init(configuration: NotificationHubConfiguration, logger: Logger = Logger(label: "waypoint.gateway.notifications"),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        let retention = Double(configuration.retention.components.seconds)
        state = Mutex(State(buffers: NotificationBuffers(perUserLimit: configuration.perUserLimit, retention: retention,
                                                         maxUsers: configuration.maxUsers,
                                                         maxNotifications: configuration.maxNotifications)))
    }

    /// Where the hub stands: starting (not caught up yet), live, or retrying its source.
    public var status: NotificationHubStatus { state.withLock { $0.status } }

    /// Open streams, over all users.
    public var subscriberCount: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    /// Users with buffered notifications, and notifications buffered.
    public var bufferedCounts: (users: Int, notifications: Int) {
        state.withLock { ($0.buffers.userCount, $0.buffers.notificationCount) }
    }

    /// The readiness check: not ready until the hub has read what its source held at start (so a resuming client is
    /// not told "nothing new" by an empty buffer); a source that goes away later only shows in ``status`` and the log,
    /// since the gateway's other routes must not go out of rotation with it.
    public func readinessCheck() -> Readiness.Check {
        { [self] in
            switch status {
            case .starting(let error?): .notReady("notification hub catching up; source unavailable: \(error)")
            case .starting(nil): .notReady("notification hub catching up")
            case .live, .retrying: .ready
            }
        }
    }

    /// Opens a stream for `userID`: the buffered notifications after `lastEventID` (all of them when it is absent or
    /// unknown), then live ones. Opening more than ``NotificationHubConfiguration/maxStreamsPerUser`` closes the oldest.
    public func subscribe(userID: UUID, after lastEventID: UUID?) -> NotificationSubscription {
        let (subscription, evicted) = state.withLock { state -> (NotificationSubscription, NotificationSubscription?) in
            let backlog = state.buffers.notifications(of: userID, after: lastEventID, now: now())
            state.nextSubscriptionID += 1
            let subscription = NotificationSubscription(userID: userID, id: state.nextSubscriptionID, backlog: backlog,
                                                        queueLimit: configuration.streamQueueLimit)
            if state.isShutDown {
                subscription.close()
                return (subscription, nil)
            }
            var streams = state.subscribers[userID] ?? []
            streams.append(subscription)
            let evicted = streams.count > configuration.maxStreamsPerUser ? streams.removeFirst() : nil
            state.subscribers[userID] = streams
            return (subscription, evicted)
        }
        subscription.onTermination { [weak self] in self?.remove(subscription) }
        evicted?.close()
        Gauge(label: "waypoint_notification_streams").record(subscriberCount)
        return subscription
    }

    /// Takes in one notification (what the hub's consumer loop calls for every `UserNotified`): buffers it and hands
    /// it to the user's open streams, unless it was seen before (redelivery, re-read) or is older than the retention.
    public func deliver(_ notification: UserNotified) {
        let streams = state.withLock { state -> [NotificationSubscription] in
            guard state.buffers.insert(notification, now: now()) else { return [] }
            return state.subscribers[notification.userId] ?? []
        }
        for stream in streams { stream.deliver(notification) }
    }

    /// Forgets an erased user: their buffer goes, later notifications for them are not kept, open streams end.
    public func erase(userID: UUID) {
        let streams = state.withLock { state -> [NotificationSubscription] in
            state.buffers.erase(userID)
            return state.subscribers.removeValue(forKey: userID) ?? []
        }
        for stream in streams { stream.close() }
    }

    /// Ends every open stream and refuses new ones (they open and end at once): the hub is stopping.
    func closeAll() {
        let streams = state.withLock { state -> [NotificationSubscription] in
            state.isShutDown = true
            defer { state.subscribers = [:] }
            return state.subscribers.values.flatMap { $0 }
        }
        for stream in streams { stream.close() }
    }

    private func remove(_ subscription: NotificationSubscription) {
        state.withLock { state in
            guard var streams = state.subscribers[subscription.userID] else { return }
            streams.removeAll { $0.id == subscription.id }
            state.subscribers[subscription.userID] = streams.isEmpty ? nil : streams
        }
        Gauge(label: "waypoint_notification_streams").record(subscriberCount)
    }
}

/// Where a ``NotificationHub`` stands.
public enum NotificationHubStatus: Sendable, Hashable, CustomStringConvertible {
    /// Reading what its source held at start; `lastError` when the source cannot be reached.
    case starting(lastError: String?)
    /// Caught up once; delivering as notifications arrive.
    case live
    /// Was live; its source is unreachable now and it retries (streams stay open, buffers stay).
    case retrying(lastError: String)

    public var description: String {
        switch self {
        case .starting(nil): "starting"
        case .starting(let error?): "starting (source unavailable: \(error))"
        case .live: "live"
        case .retrying(let error): "retrying (source unavailable: \(error))"
        }
    }
}
