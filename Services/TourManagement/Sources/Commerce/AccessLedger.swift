import Contracts
import Crypto
import EventSourcing
import Foundation
import ServiceKit

/// One traveller's access to one tour: the stream `access-<tourId>-<userId>` (lower-case UUIDs) of
/// `Shared/Contracts/Tours/PurchaseEvents.swift`. Whether the traveller owns the tour, and whether a purchase may start,
/// complete, fail or be refunded, is decided on this one stream with `.noStream` / `.exact(version)` appends, so two
/// concurrent requests cannot both buy.
///
/// Idempotency keys are not stored: the purchase id is derived from them (``requestID(tour:user:idempotencyKey:)``), so
/// the same key names the same purchase, and a free acquisition is appended with that id as its *event id* (the published
/// `TourAcquired` has no purchase id). Nothing but published events is written to the stream.
public enum AccessStream {
    /// `access-<tourId>-<userId>`.
    public static func id(tour: UUID, user: UUID) -> String {
        "access-\(tour.uuidString.lowercased())-\(user.uuidString.lowercased())"
    }

    /// The purchase id of a request: the first 16 bytes of SHA-256(`waypoint.purchase` ‖ 0 ‖ user ‖ 0 ‖ tour ‖ 0 ‖ key),
    /// shaped as an RFC 9562 version-8 UUID. The same key of the same traveller for the same tour always names the same
    /// purchase; the same key for another tour names another one.
    public static func requestID(tour: UUID, user: UUID, idempotencyKey: String) -> UUID {
        var input = Data("waypoint.purchase".utf8)
        for part in [user.uuidString.lowercased(), tour.uuidString.lowercased(), idempotencyKey] {
            input.append(0)
            input.append(contentsOf: Data(part.utf8))
        }
        var bytes = Array(SHA256.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// Where one purchase stands.
public enum PurchaseStatus: String, Codable, Sendable, Hashable {
    case pending
    case completed
    case failed
    case refunded
}

/// One purchase as the access stream knows it.
public struct PurchaseRecord: Codable, Sendable {
    /// What was fixed when it started: price, fee, earnings, revision, provider reference.
    public var started: PurchaseStarted
    public var status: PurchaseStatus
    public var completedAt: Date?
    public var providerPaymentId: String?
    public var failedAt: Date?
    public var failureReason: String?
    public var refundedAt: Date?

    public var purchaseId: UUID { started.purchaseId }
}

/// A free tour taken; `eventID` is the id of the `TourAcquired` event (the request id of its idempotency key).
public struct AcquisitionRecord: Codable, Sendable {
    public var eventID: UUID
    public var acquired: TourAcquired
}

/// The folded access stream.
public struct AccessState: Codable, Sendable {
    /// Every purchase, in the order they started.
    public var purchases: [PurchaseRecord] = []
    public var acquisition: AcquisitionRecord?

    public init() {}

    public func purchase(_ id: UUID) -> PurchaseRecord? { purchases.first { $0.purchaseId == id } }

    /// The completed (not refunded) purchase that grants the tour, if any.
    public var owningPurchase: PurchaseRecord? { purchases.last { $0.status == .completed } }

    /// Whether the traveller owns the tour now (a free acquisition or a completed, unrefunded purchase).
    public var owns: Bool { acquisition != nil || owningPurchase != nil }

    var pending: [PurchaseRecord] { purchases.filter { $0.status == .pending } }
}

/// The events of an access stream.
public enum AccessEvent: Sendable {
    case started(PurchaseStarted)
    case completed(PurchaseCompleted)
    case failed(PurchaseFailed)
    case refunded(PurchaseRefunded)
    /// A free acquisition, with the id of its event: the request id of its idempotency key (see ``AccessStream``).
    case acquired(TourAcquired, eventID: UUID)

    static let types = EventTypeMap<AccessEvent>()
        .registering(PurchaseStarted.self) { .started($0) }
        .registering(PurchaseCompleted.self) { .completed($0) }
        .registering(PurchaseFailed.self) { .failed($0) }
        .registering(PurchaseRefunded.self) { .refunded($0) }
        .registering(TourAcquired.self, identified: { .acquired($0, eventID: $1) })

    var payload: any EventPayload {
        switch self {
        case .started(let e): e
        case .completed(let e): e
        case .failed(let e): e
        case .refunded(let e): e
        case .acquired(let e, _): e
        }
    }
}

/// Why a marketplace command was refused; each maps to one problem.
public enum CommerceError: Error, Sendable, Hashable, ProblemConvertible {
    /// No listed (published) tour with that id: unknown, draft, unpublished or deleted.
    case unknownTour
    case ownTour
    case alreadyOwned
    /// Another purchase of the tour is waiting for its payment.
    case purchasePending(UUID)
    /// Nothing the traveller may get refunded (no completed purchase; free tours).
    case notRefundable
    case refundWindowClosed(Date)
    case unknownPurchase
    case checkoutExpired
    /// The payment provider did not answer as expected.
    case provider(String)
    /// The stream kept changing under the command.
    case contention

    public var problem: Problem {
        switch self {
        case .unknownTour: Problem.notFound("no such published tour", code: "unknown-tour")
        case .ownTour: Problem.conflict("Guides cannot buy their own tours.", code: "own-tour")
        case .alreadyOwned: Problem.conflict("You already own this tour.", code: "already-owned")
        case .purchasePending(let id):
            Problem.conflict("Purchase \(id.uuidString.lowercased()) of this tour is waiting for its payment; finish it, or send its Idempotency-Key again to see where it stands.",
                             code: "purchase-pending")
        case .notRefundable: Problem.conflict("There is no completed purchase of this tour to refund (free tours are not refunded).", code: "not-refundable")
        case .refundWindowClosed(let until):
            Problem.conflict("Refunds were possible until \(until.formatted(.iso8601)) (14 days after the purchase).", code: "refund-window-closed")
        case .unknownPurchase: Problem.notFound("no such purchase", code: "unknown-purchase")
        case .checkoutExpired: Problem.conflict("The checkout expired; start a new purchase.", code: "checkout-expired")
        case .provider(let detail):
            Problem(status: .badGateway, code: "payment-provider-unavailable", title: "Payment provider unavailable",
                    detail: "The payment provider could not be reached or refused the request (\(detail)); retry with the same Idempotency-Key.")
        case .contention: Problem.conflict("The purchase changed at the same time; retry with the same Idempotency-Key.", code: "version-conflict")
        }
    }
}

/// What a provider's confirmation did to the stream.
public enum AccessOutcome: String, Sendable, Hashable {
    case completed, failed, refunded
    /// Already in that state (a replayed or duplicated webhook).
    case duplicate
    /// Not applicable: unknown purchase, or a transition the rules refuse (logged).
    case ignored
    /// A payment arrived for a purchase whose tour the traveller already owns another way: money taken, nothing granted.
    case paidButAlreadyOwned = "paid-but-already-owned"
}

/// The rules of the access stream: pure functions over ``AccessState``.
public enum AccessLedger: Sendable {
    /// Folds one event of the access stream.
    public static func apply(_ state: AccessState, _ event: AccessEvent) -> AccessState {
        var state = state
        func update(_ id: UUID, _ change: (inout PurchaseRecord) -> Void) {
            if let index = state.purchases.firstIndex(where: { $0.purchaseId == id }) { change(&state.purchases[index]) }
        }
        switch event {
        case .started(let e):
            if state.purchase(e.purchaseId) == nil { state.purchases.append(PurchaseRecord(started: e, status: .pending)) }
        case .completed(let e):
            update(e.purchaseId) {
                $0.status = .completed
                $0.completedAt = e.completedAt
                $0.providerPaymentId = e.providerPaymentId
            }
        case .failed(let e):
            update(e.purchaseId) {
                $0.status = .failed
                $0.failedAt = e.failedAt
                $0.failureReason = e.reason
            }
        case .refunded(let e):
            update(e.purchaseId) {
                $0.status = .refunded
                $0.refundedAt = e.refundedAt
            }
        case .acquired(let e, let eventID):
            if state.acquisition == nil { state.acquisition = AcquisitionRecord(eventID: eventID, acquired: e) }
        }
        return state
    }

    /// What a purchase request with id `requestID` meets.
    public enum StartCheck: Sendable {
        /// The same idempotency key was seen: answer with that purchase.
        case replay(PurchaseRecord)
        /// The same idempotency key acquired the (then free) tour.
        case replayAcquisition(AcquisitionRecord)
        /// A new purchase may start; `stale` pending purchases (checkout long expired) are closed as failed first.
        case proceed(stale: [PurchaseRecord])
    }

    /// Checks a new purchase or acquisition with id `requestID` at `now`.
    public static func checkStart(_ requestID: UUID, _ state: AccessState, now: Date, configuration: CommerceConfiguration) throws -> StartCheck {
        if let record = state.purchase(requestID) { return .replay(record) }
        if let acquisition = state.acquisition, acquisition.eventID == requestID { return .replayAcquisition(acquisition) }
        if state.owns { throw CommerceError.alreadyOwned }
        let horizon = configuration.checkoutLifetime + configuration.pendingGrace
        if let blocking = state.pending.last(where: { now.timeIntervalSince($0.started.startedAt) < horizon }) {
            throw CommerceError.purchasePending(blocking.purchaseId)
        }
        return .proceed(stale: state.pending)
    }

    /// The events of starting `started` after ``checkStart(_:_:now:configuration:)`` said `.proceed(stale:)`.
    public static func start(_ started: PurchaseStarted, closing stale: [PurchaseRecord]) -> [AccessEvent] {
        expire(stale, at: started.startedAt) + [.started(started)]
    }

    /// The events of acquiring a free tour with request id `requestID` (the acquisition's event id) after
    /// ``checkStart(_:_:now:configuration:)`` said `.proceed(stale:)`.
    public static func acquire(_ acquired: TourAcquired, requestID: UUID, closing stale: [PurchaseRecord]) -> [AccessEvent] {
        expire(stale, at: acquired.acquiredAt) + [.acquired(acquired, eventID: requestID)]
    }

    static func expire(_ stale: [PurchaseRecord], at date: Date) -> [AccessEvent] {
        stale.map {
            .failed(PurchaseFailed(purchaseId: $0.purchaseId, tourId: $0.started.tourId, userId: $0.started.userId, reason: "expired",
                                   failedAt: date))
        }
    }

    /// The provider confirmed payment `paymentId` of `purchaseId`. A pending purchase completes; so does a failed one (a
    /// declined card may be followed by a successful one in the same checkout) unless the tour is owned another way.
    public static func complete(_ purchaseId: UUID, paymentId: String, at date: Date, _ state: AccessState) -> ([AccessEvent], AccessOutcome) {
        guard let record = state.purchase(purchaseId) else { return ([], .ignored) }
        switch record.status {
        case .completed, .refunded:
            return ([], .duplicate)
        case .pending, .failed:
            if state.owns { return ([], .paidButAlreadyOwned) }
            let s = record.started
            return ([.completed(PurchaseCompleted(purchaseId: s.purchaseId, tourId: s.tourId, userId: s.userId, guideId: s.guideId,
                                                  revision: s.revision, price: s.price, platformFee: s.platformFee,
                                                  guideEarnings: s.guideEarnings, providerPaymentId: paymentId, completedAt: date))],
                    .completed)
        }
    }

    /// The provider reports that `purchaseId` will not be paid (declined, expired). Only a pending purchase fails.
    public static func fail(_ purchaseId: UUID, reason: String, at date: Date, _ state: AccessState) -> ([AccessEvent], AccessOutcome) {
        guard let record = state.purchase(purchaseId) else { return ([], .ignored) }
        guard record.status == .pending else { return ([], record.status == .failed ? .duplicate : .ignored) }
        return ([.failed(PurchaseFailed(purchaseId: purchaseId, tourId: record.started.tourId, userId: record.started.userId,
                                        reason: reason, failedAt: date))], .failed)
    }

    /// The provider refunded `purchaseId` (whoever asked: the buyer through us, or an operator in the provider's
    /// dashboard). A completed purchase becomes refunded and the entitlement goes.
    public static func refund(_ purchaseId: UUID, at date: Date, _ state: AccessState) -> ([AccessEvent], AccessOutcome) {
        guard let record = state.purchase(purchaseId) else { return ([], .ignored) }
        guard record.status == .completed else { return ([], record.status == .refunded ? .duplicate : .ignored) }
        let s = record.started
        return ([.refunded(PurchaseRefunded(purchaseId: s.purchaseId, tourId: s.tourId, userId: s.userId, guideId: s.guideId, amount: s.price,
                                            platformFee: s.platformFee, guideEarnings: s.guideEarnings, refundedAt: date))], .refunded)
    }

    /// The purchase a buyer's refund request is about: the completed one, within `refundWindow` of its completion; an
    /// already refunded one (no completed purchase left) answers again.
    public static func checkRefund(_ state: AccessState, now: Date, configuration: CommerceConfiguration) throws -> PurchaseRecord {
        if let owning = state.owningPurchase {
            let until = (owning.completedAt ?? owning.started.startedAt).addingTimeInterval(configuration.refundWindow)
            guard now <= until else { throw CommerceError.refundWindowClosed(until) }
            return owning
        }
        if state.acquisition == nil, let refunded = state.purchases.last(where: { $0.status == .refunded }) { return refunded }
        throw CommerceError.notRefundable
    }
}
