import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit

/// A purchase or acquisition as its buyer sees it.
public struct PurchaseView: Sendable {
    public enum Status: String, Codable, Sendable, Hashable {
        case pending, completed, failed, refunded
        /// A free tour, taken.
        case acquired
        /// The refund was asked of the provider, which has not confirmed it yet (answers to `POST …/refund` only).
        case refundPending = "refund-pending"
    }

    /// `nil` for free acquisitions.
    public var purchaseId: UUID?
    public var tourId: UUID
    public var status: Status
    public var revision: Int
    public var price: Money
    public var provider: String?
    /// Where to pay, while pending.
    public var checkoutUrl: String?
    public var startedAt: Date?
    /// While pending: after this the checkout cannot be paid.
    public var expiresAt: Date?
    public var completedAt: Date?
    public var failedAt: Date?
    public var failureReason: String?
    public var refundedAt: Date?
    /// Completed purchases: the last moment a refund may be asked for.
    public var refundableUntil: Date?
    public var acquiredAt: Date?
}

/// The answer to a purchase request: `created` is false when the Idempotency-Key was seen before.
public struct PurchaseOutcome: Sendable {
    public var purchase: PurchaseView
    public var created: Bool
}

/// What a verified webhook did.
public struct WebhookReceipt: Sendable, Hashable {
    public var eventId: String
    public var type: String
    public var outcome: AccessOutcome
}

/// Purchases, free acquisitions, refunds and the provider's confirmations, all decided on the access stream
/// (``AccessLedger``, through an ``AggregateRepository``). The price, fee and earnings are fixed in `PurchaseStarted`
/// from the listed revision in the discovery read model and the configured fee rate.
///
/// Retry policy: buying and the provider's confirmations stay valid against newer state, so on a concurrent change
/// they load and decide again — five attempts (``contentionRetries`` retries), then 409 `version-conflict`.
public struct Purchases: Sendable {
    public let configuration: CommerceConfiguration
    public let store: AnyEventStore
    public let catalog: TourCatalog
    public let provider: any PaymentProvider
    let webhookSecret: String
    public let now: @Sendable () -> Date
    let logger: Logger
    /// Load → decide → append of the access streams.
    let access: AggregateRepository<AccessLedger, AnyEventStore>
    /// Reloads and decisions after a concurrent change before ``CommerceError/contention`` is reported.
    static let contentionRetries = 4

    public init(configuration: CommerceConfiguration, store: AnyEventStore, catalog: TourCatalog, provider: any PaymentProvider,
                webhookSecret: String, now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "waypoint.tour-management.purchases")) {
        self.configuration = configuration
        self.store = store
        self.catalog = catalog
        self.provider = provider
        self.webhookSecret = webhookSecret
        self.now = now
        self.logger = logger
        self.access = AggregateRepository(store: store)
    }

    /// The access stream of (tour, user), folded, and its version.
    public func load(tour: UUID, user: UUID) async throws -> (state: AccessState, version: Int64) {
        let loaded = try await access.load(AccessStream.id(tour: tour, user: user))
        return (loaded.state, loaded.version)
    }

    /// Runs `decide` on the access stream of (tour, user) with ``contentionRetries``; a conflict left after the last
    /// retry is ``CommerceError/contention``.
    func onAccessStream<Answer>(tour: UUID, user: UUID, metadata: EventMetadata,
                                _ decide: (AccessState) async throws -> (events: [AccessEvent], answer: Answer)) async throws -> Answer {
        do {
            return try await access.execute(on: AccessStream.id(tour: tour, user: user), metadata: metadata, retries: Self.contentionRetries) {
                try await decide($0.state)
            }
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw CommerceError.contention
        }
    }

    // MARK: - Buying

    /// Buys (or, when free, acquires) the listed tour `tourId` for `user`. The same `idempotencyKey` always answers with
    /// the same purchase and never opens a second checkout.
    public func purchase(tour tourId: UUID, user: UUID, idempotencyKey: String, metadata: EventMetadata = .init()) async throws -> PurchaseOutcome {
        guard let tour = try await catalog.tour(tourId) else { throw CommerceError.unknownTour }
        guard tour.guideId != user else { throw CommerceError.ownTour }
        let requestID = AccessStream.requestID(tour: tourId, user: user, idempotencyKey: idempotencyKey)
        // Someone else appended meanwhile: decide again on the new state (a same-key request finds its purchase, a
        // same-key acquisition that won the race is found by its event id).
        return try await onAccessStream(tour: tourId, user: user, metadata: metadata) { state in
            let at = now()
            switch try AccessLedger.checkStart(requestID, state, now: at, configuration: configuration) {
            case .replay(let record):
                return ([], PurchaseOutcome(purchase: try await view(record, state: state), created: false))
            case .replayAcquisition(let acquisition):
                return ([], PurchaseOutcome(purchase: Self.view(acquisition, price: .zero(tour.details.price.currency)), created: false))
            case .proceed:
                return try await start(requestID, of: tour, by: user, at: at, state)
            }
        }
    }

    /// The events and answer of a new purchase (a checkout at the provider) or, for a free tour, an acquisition.
    func start(_ requestID: UUID, of tour: PublishedTour, by user: UUID, at: Date, _ state: AccessState) async throws
        -> (events: [AccessEvent], answer: PurchaseOutcome) {
        let price = tour.details.price
        if price.amountMinor == 0 {
            let acquired = TourAcquired(tourId: tour.tourId, userId: user, guideId: tour.guideId, revision: tour.revision, acquiredAt: at)
            return (AccessLedger.decide(.acquire(acquired, requestID: requestID), state),
                    PurchaseOutcome(purchase: Self.view(AcquisitionRecord(eventID: requestID, acquired: acquired), price: price), created: true))
        }
        let (fee, earnings) = configuration.split(price)
        let session = try await checkout(requestID, of: tour, by: user, at: at)
        let started = PurchaseStarted(purchaseId: requestID, tourId: tour.tourId, userId: user, guideId: tour.guideId, revision: tour.revision,
                                      price: price, platformFee: fee, guideEarnings: earnings,
                                      feeBasisPoints: configuration.platformFeeBasisPoints, provider: provider.name,
                                      providerReference: session.reference, startedAt: at)
        var view = Self.view(PurchaseRecord(started: started, status: .pending), configuration: configuration)
        view.checkoutUrl = session.url
        return (AccessLedger.decide(.start(started), state), PurchaseOutcome(purchase: view, created: true))
    }

    /// Opens the provider's checkout of purchase `requestID` (the provider keys it by that id).
    func checkout(_ requestID: UUID, of tour: PublishedTour, by user: UUID, at: Date) async throws -> CheckoutSession {
        do {
            return try await provider.createCheckout(CheckoutRequest(
                purchaseId: requestID, tourId: tour.tourId, userId: user, title: tour.details.title, price: tour.details.price, startedAt: at,
                expiresAt: at.addingTimeInterval(configuration.checkoutLifetime), successURL: configuration.checkoutSuccessURL,
                cancelURL: configuration.checkoutCancelURL))
        } catch let error as CommerceError {
            throw error
        } catch {
            throw CommerceError.provider("\(error)")
        }
    }

    // MARK: - Refunds

    /// The buyer asks for a refund of their completed purchase of `tourId`, within the refund window. The provider
    /// confirms through `charge.refunded` (the sandbox at once, Stripe a moment later): the answer is `refunded` or
    /// `refund-pending`.
    public func refund(tour tourId: UUID, user: UUID) async throws -> PurchaseView {
        let (state, _) = try await load(tour: tourId, user: user)
        let record = try AccessLedger.checkRefund(state, now: now(), configuration: configuration)
        if record.status == .refunded { return Self.view(record, configuration: configuration) }
        do {
            try await provider.refund(RefundRequest(purchaseId: record.purchaseId, tourId: tourId, userId: user, amount: record.started.price,
                                                    checkoutReference: record.started.providerReference,
                                                    paymentId: record.providerPaymentId ?? record.started.providerReference),
                                      deliver: { body, signature in _ = try await self.receiveWebhook(body: body, signature: signature) })
        } catch let error as CommerceError {
            throw error
        } catch let problem as Problem {
            throw problem
        } catch {
            throw CommerceError.provider("\(error)")
        }
        let (after, _) = try await load(tour: tourId, user: user)
        guard let current = after.purchase(record.purchaseId) else { throw CommerceError.unknownPurchase }
        var view = Self.view(current, configuration: configuration)
        if current.status == .completed { view.status = .refundPending }
        return view
    }

    // MARK: - Webhooks

    /// The webhook path: verifies the `Stripe-Signature` of the raw `body` (400 problems for a missing, malformed,
    /// stale or wrong signature — nothing is read from an unverified body), then applies the event to the purchase its
    /// metadata names. Replays and duplicates change nothing (every transition is decided on the access stream).
    public func receiveWebhook(body: [UInt8], signature: String?) async throws -> WebhookReceipt {
        do {
            try StripeSignature.verify(payload: body, header: signature, secret: webhookSecret, tolerance: configuration.webhookTolerance,
                                       now: now())
        } catch let failure as StripeSignature.Failure {
            logger.warning("webhook refused", metadata: ["reason": "\(failure)"])
            throw failure.problem
        }
        let event: StripeEvent
        do {
            event = try JSONDecoder().decode(StripeEvent.self, from: Data(body))
        } catch {
            throw Problem.badRequest("The webhook body is not a Stripe event.", code: "malformed-event")
        }
        let outcome = try await apply(event)
        var log = logger
        log[metadataKey: "webhook.event"] = "\(event.id)"
        log[metadataKey: "webhook.type"] = "\(event.type)"
        switch outcome {
        case .paidButAlreadyOwned:
            log.error("payment received for a tour the buyer already owns: refund it in the provider's dashboard",
                      metadata: ["purchase.id": "\(event.object.metadata["purchaseId"] ?? "?")"])
        case .ignored:
            log.info("webhook ignored")
        default:
            log.debug("webhook applied", metadata: ["outcome": "\(outcome.rawValue)"])
        }
        return WebhookReceipt(eventId: event.id, type: event.type, outcome: outcome)
    }

    func apply(_ event: StripeEvent) async throws -> AccessOutcome {
        guard let keys = event.object.purchaseKeys else { return .ignored }
        let decide: @Sendable (AccessState, PurchaseRecord, Date) -> ([AccessEvent], AccessOutcome)
        switch event.type {
        case "checkout.session.completed", "checkout.session.async_payment_succeeded":
            // A completed session of a delayed payment method is not paid yet: async_payment_succeeded follows.
            if event.type == "checkout.session.completed", let status = event.object.paymentStatus, status != "paid" { return .ignored }
            let paymentId = event.object.paymentIntent ?? event.object.id ?? "unknown"
            let amount = event.object.amountTotal, currency = event.object.currency?.uppercased()
            decide = { state, record, at in
                if let amount, amount != record.started.price.amountMinor { return ([], .ignored) }
                if let currency, currency != record.started.price.currency.code { return ([], .ignored) }
                return AccessLedger.complete(record.purchaseId, paymentId: paymentId, at: at, state)
            }
        case "checkout.session.expired":
            decide = { state, record, at in AccessLedger.fail(record.purchaseId, reason: "expired", at: at, state) }
        case "checkout.session.async_payment_failed", "payment_intent.payment_failed":
            let reason = event.object.failureCode ?? "payment_failed"
            decide = { state, record, at in AccessLedger.fail(record.purchaseId, reason: reason, at: at, state) }
        case "charge.refunded":
            // Partial refunds keep the tour; only a fully refunded charge revokes it.
            guard event.object.refunded == true else { return .ignored }
            decide = { state, record, at in AccessLedger.refund(record.purchaseId, at: at, state) }
        default:
            return .ignored
        }
        return try await onAccessStream(tour: keys.tourId, user: keys.userId,
                                        metadata: EventMetadata(actorID: "system:payments:\(provider.name)")) { state in
            guard let record = state.purchase(keys.purchaseId), record.started.userId == keys.userId, record.started.tourId == keys.tourId else {
                return ([], .ignored)
            }
            return decide(state, record, now())
        }
    }

    // MARK: - Views

    func view(_ record: PurchaseRecord, state: AccessState) async throws -> PurchaseView {
        var view = Self.view(record, configuration: configuration)
        if record.status == .pending {
            view.checkoutUrl = try? await provider.checkoutURL(reference: record.started.providerReference, purchaseId: record.purchaseId)
        }
        return view
    }

    static func view(_ record: PurchaseRecord, configuration: CommerceConfiguration) -> PurchaseView {
        let s = record.started
        let status: PurchaseView.Status = switch record.status {
        case .pending: .pending
        case .completed: .completed
        case .failed: .failed
        case .refunded: .refunded
        }
        return PurchaseView(
            purchaseId: s.purchaseId, tourId: s.tourId, status: status, revision: s.revision, price: s.price, provider: s.provider,
            checkoutUrl: nil, startedAt: s.startedAt,
            expiresAt: record.status == .pending ? s.startedAt.addingTimeInterval(configuration.checkoutLifetime) : nil,
            completedAt: record.completedAt, failedAt: record.failedAt, failureReason: record.failureReason, refundedAt: record.refundedAt,
            refundableUntil: record.status == .completed ? record.completedAt?.addingTimeInterval(configuration.refundWindow) : nil,
            acquiredAt: nil)
    }

    static func view(_ acquisition: AcquisitionRecord, price: Money) -> PurchaseView {
        let a = acquisition.acquired
        return PurchaseView(purchaseId: nil, tourId: a.tourId, status: .acquired, revision: a.revision, price: .zero(price.currency), provider: nil,
                            checkoutUrl: nil, startedAt: nil, expiresAt: nil, completedAt: nil, failedAt: nil, failureReason: nil, refundedAt: nil,
                            refundableUntil: nil, acquiredAt: a.acquiredAt)
    }

    // MARK: - Sandbox

    /// `POST /v1/payments/sandbox/{purchaseId}/confirm|decline`: the sandbox sends the signed webhook through
    /// ``receiveWebhook(body:signature:)``; returns the purchase as it stands afterwards.
    public func sandbox(_ purchaseId: UUID, user: UUID, confirm: Bool) async throws -> PurchaseView {
        guard let sandbox = provider as? SandboxPaymentProvider else { throw CommerceError.unknownPurchase }
        let session = try await sandbox.session(purchaseId, of: user)
        let deliver: WebhookDelivery = { body, signature in _ = try await self.receiveWebhook(body: body, signature: signature) }
        if confirm { try await sandbox.confirm(session, deliver: deliver) } else { try await sandbox.decline(session, deliver: deliver) }
        let (state, _) = try await load(tour: session.tourId, user: user)
        guard let record = state.purchase(purchaseId) else { throw CommerceError.unknownPurchase }
        return Self.view(record, configuration: configuration)
    }
}
