import Contracts
import Foundation

/// The default provider: no money moves, but everything after the checkout goes the way it goes with Stripe. Paying is
/// `POST /v1/payments/sandbox/{purchaseId}/confirm` (or `/decline`); the sandbox then builds the Stripe-shaped event
/// (`checkout.session.completed`, `payment_intent.payment_failed`, `checkout.session.expired`, `charge.refunded`), signs
/// it with the webhook secret exactly as Stripe does, and hands body and header to the service's webhook path — the code
/// `POST /v1/payments/webhook` runs — so signature checking, replay handling and the access stream are exercised as in
/// production. Checkouts are kept in `payment_sandbox_sessions` and survive a restart.
public struct SandboxPaymentProvider: PaymentProvider {
    public let name = "sandbox"
    let records: any PaymentRecords
    let secret: String
    let now: @Sendable () -> Date

    public init(records: any PaymentRecords, webhookSecret: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.records = records
        secret = webhookSecret
        self.now = now
    }

    /// Where a client "pays" a sandbox checkout (relative to the service).
    public static func confirmPath(_ purchaseId: UUID) -> String {
        "/v1/payments/sandbox/\(purchaseId.uuidString.lowercased())/confirm"
    }

    static func hex(_ id: UUID) -> String { id.uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

    public func createCheckout(_ request: CheckoutRequest) async throws -> CheckoutSession {
        let hex = Self.hex(request.purchaseId)
        let session = try await records.saveSandboxSession(SandboxSession(
            purchaseId: request.purchaseId, tourId: request.tourId, userId: request.userId, amountMinor: request.price.amountMinor,
            currency: request.price.currency.code, reference: "sbx_cs_\(hex)", paymentIntent: "sbx_pi_\(hex)", createdAt: request.startedAt,
            expiresAt: request.expiresAt))
        return CheckoutSession(reference: session.reference, url: Self.confirmPath(session.purchaseId))
    }

    public func checkoutURL(reference: String, purchaseId: UUID) async throws -> String? {
        Self.confirmPath(purchaseId)
    }

    public func refund(_ request: RefundRequest, deliver: WebhookDelivery) async throws {
        let object: [String: Any] = [
            "id": "sbx_ch_\(Self.hex(request.purchaseId))", "object": "charge", "payment_intent": request.paymentId, "refunded": true,
            "amount": request.amount.amountMinor, "amount_refunded": request.amount.amountMinor, "currency": request.amount.currency.code.lowercased(),
            "metadata": StripeEventBody.metadata(purchaseId: request.purchaseId, tourId: request.tourId, userId: request.userId),
        ]
        try await send("charge.refunded", object, deliver)
    }

    /// The buyer's checkout `purchaseId` (404 `unknown-purchase` for anyone else's or an unknown one).
    public func session(_ purchaseId: UUID, of user: UUID) async throws -> SandboxSession {
        guard let session = try await records.sandboxSession(purchaseId), session.userId == user else { throw CommerceError.unknownPurchase }
        return session
    }

    /// "Pays" the checkout: sends `checkout.session.completed`. After `expiresAt` it sends `checkout.session.expired`
    /// instead and throws ``CommerceError/checkoutExpired``.
    public func confirm(_ session: SandboxSession, deliver: WebhookDelivery) async throws {
        if now() > session.expiresAt {
            try await send("checkout.session.expired", sessionObject(session, status: "expired", paymentStatus: "unpaid"), deliver)
            throw CommerceError.checkoutExpired
        }
        try await send("checkout.session.completed", sessionObject(session, status: "complete", paymentStatus: "paid"), deliver)
    }

    /// Declines the card: sends `payment_intent.payment_failed` (`card_declined`).
    public func decline(_ session: SandboxSession, deliver: WebhookDelivery) async throws {
        let object: [String: Any] = [
            "id": session.paymentIntent, "object": "payment_intent", "amount": session.amountMinor, "currency": session.currency.lowercased(),
            "status": "requires_payment_method", "last_payment_error": ["code": "card_declined", "decline_code": "card_declined"],
            "metadata": StripeEventBody.metadata(purchaseId: session.purchaseId, tourId: session.tourId, userId: session.userId),
        ]
        try await send("payment_intent.payment_failed", object, deliver)
    }

    func sessionObject(_ session: SandboxSession, status: String, paymentStatus: String) -> [String: Any] {
        [
            "id": session.reference, "object": "checkout.session", "mode": "payment", "status": status, "payment_status": paymentStatus,
            "payment_intent": session.paymentIntent, "amount_total": session.amountMinor, "currency": session.currency.lowercased(),
            "client_reference_id": session.purchaseId.uuidString.lowercased(),
            "metadata": StripeEventBody.metadata(purchaseId: session.purchaseId, tourId: session.tourId, userId: session.userId),
        ]
    }

    func send(_ type: String, _ object: [String: Any], _ deliver: WebhookDelivery) async throws {
        let at = now()
        let body = StripeEventBody.make(type: type, created: at, object: object)
        try await deliver(body, StripeSignature.header(payload: body, secret: secret, at: at))
    }
}
