import Contracts
import EventSourcing
import Foundation

/// The access stream as an ``Aggregate``: ``Purchases`` loads, decides and appends through an
/// `AggregateRepository<AccessLedger, _>`, and the rules stay pure functions over ``AccessState``.
extension AccessLedger: Aggregate {
    /// What the access stream is asked to record.
    public enum Command: Sendable {
        /// Start a purchase, after ``AccessLedger/checkStart(_:_:now:configuration:)`` said `.proceed(stale:)`.
        case start(PurchaseStarted)
        /// Acquire a free tour with request id `requestID`, after the same check.
        case acquire(TourAcquired, requestID: UUID)
        /// The provider confirmed payment `paymentId` of a purchase.
        case complete(purchaseId: UUID, paymentId: String, at: Date)
        /// The provider reports that a purchase will not be paid.
        case fail(purchaseId: UUID, reason: String, at: Date)
        /// The provider refunded a purchase.
        case refund(purchaseId: UUID, at: Date)
    }

    /// A new stream: no purchase, no acquisition.
    public static var initialState: AccessState { AccessState() }

    /// The five events of the stream (`TourAcquired` keeps its event id).
    public static var eventTypes: EventTypeMap<AccessEvent> { AccessEvent.types }

    /// The events `command` causes on `state`; pending purchases whose checkout ran out are closed as failed before a
    /// new purchase or acquisition. (The provider's confirmations also tell what they did: ``complete(_:paymentId:at:_:)``,
    /// ``fail(_:reason:at:_:)`` and ``refund(_:at:_:)`` return the webhook's outcome with the same events.)
    public static func decide(_ command: Command, _ state: AccessState) -> [AccessEvent] {
        switch command {
        case .start(let started): start(started, closing: state.pending)
        case .acquire(let acquired, let requestID): acquire(acquired, requestID: requestID, closing: state.pending)
        case let .complete(purchaseId, paymentId, at): complete(purchaseId, paymentId: paymentId, at: at, state).0
        case let .fail(purchaseId, reason, at): fail(purchaseId, reason: reason, at: at, state).0
        case let .refund(purchaseId, at): refund(purchaseId, at: at, state).0
        }
    }

    /// The stored payload of an access event.
    public static func payload(of event: AccessEvent) -> any EventPayload { event.payload }

    /// A free acquisition is stored with its request id as event id, so the same idempotency key finds it again.
    public static func eventID(of event: AccessEvent) -> UUID? {
        if case .acquired(_, let eventID) = event { eventID } else { nil }
    }
}
