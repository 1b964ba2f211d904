import Contracts
import Foundation

/// One open push stream of one user, as the hub hands it out: what was buffered after the client's `Last-Event-ID`,
/// then everything new, in order, with nothing missed or repeated in between (both are taken under the hub's lock).
///
/// The subscription ends (``events`` finishes) when ``close()`` is called, when the hub shuts down, when the user
/// opens more than the allowed number of streams (the oldest ends), or when the client reads so slowly that
/// ``NotificationHubConfiguration/streamQueueLimit`` notifications wait for it — it then reconnects with
/// `Last-Event-ID` and gets them from the buffer. Ending the iteration (or its task) removes it from the hub.
public final class NotificationSubscription: Sendable {
    /// What a stream writes next.
    public enum Event: Sendable, Equatable {
        /// A new notification for the user.
        case notification(UserNotified)
        /// Time for a keep-alive comment (from ``keepAlive()``).
        case keepAlive
    }

    /// The user whose notifications these are.
    public let userID: UUID
    /// Buffered notifications after the client's last seen one, oldest first.
    public let backlog: [UserNotified]
    /// Live notifications (and keep-alive ticks) from now on.
    public let events: AsyncStream<Event>
    let id: Int
    private let continuation: AsyncStream<Event>.Continuation

    init(userID: UUID, id: Int, backlog: [UserNotified], queueLimit: Int) {
        self.userID = userID
        self.id = id
        self.backlog = backlog
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingOldest(queueLimit))
    }

    /// Queues a keep-alive tick (dropped, harmlessly, when the queue is full).
    public func keepAlive() {
        continuation.yield(.keepAlive)
    }

    /// Ends the stream.
    public func close() {
        continuation.finish()
    }

    /// Queues a notification; a full queue ends the subscription (the client resumes from the buffer).
    func deliver(_ notification: UserNotified) {
        if case .dropped = continuation.yield(.notification(notification)) {
            continuation.finish()
        }
    }

    func onTermination(_ handler: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in handler() }
    }
}
