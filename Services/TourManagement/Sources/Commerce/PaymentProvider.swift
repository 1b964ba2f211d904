import Contracts
import Foundation

/// What a provider needs to take one payment.
public struct CheckoutRequest: Sendable, Hashable {
    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    /// Shown on the provider's payment page.
    public var title: String
    public var price: Money
    public var startedAt: Date
    /// After this the checkout cannot be paid any more.
    public var expiresAt: Date
    public var successURL: String
    public var cancelURL: String

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, title: String, price: Money, startedAt: Date, expiresAt: Date,
                successURL: String, cancelURL: String) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.title = title
        self.price = price
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.successURL = successURL
        self.cancelURL = cancelURL
    }
}

/// A checkout the buyer can pay.
public struct CheckoutSession: Sendable, Hashable {
    /// The provider's id of it (Stripe: `cs_…`), kept as `PurchaseStarted.providerReference`.
    public var reference: String
    /// Where the buyer pays (Stripe's hosted page; the sandbox's confirm route).
    public var url: String?

    public init(reference: String, url: String?) {
        self.reference = reference
        self.url = url
    }
}

/// A refund of a completed purchase.
public struct RefundRequest: Sendable, Hashable {
    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var amount: Money
    /// `PurchaseStarted.providerReference` (the checkout).
    public var checkoutReference: String
    /// `PurchaseCompleted.providerPaymentId` (Stripe: the payment intent).
    public var paymentId: String

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, amount: Money, checkoutReference: String, paymentId: String) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.amount = amount
        self.checkoutReference = checkoutReference
        self.paymentId = paymentId
    }
}

/// Hands a signed webhook (raw body, `Stripe-Signature` header) to the service's webhook path, the one
/// `POST /v1/payments/webhook` uses. Real providers call the route over HTTP and never use it; the sandbox calls it.
public typealias WebhookDelivery = @Sendable (_ body: [UInt8], _ signatureHeader: String) async throws -> Void

/// A payment provider: it takes the money and later confirms (or not) through a signed webhook in Stripe's format.
///
/// Calls must be idempotent per purchase: two concurrent requests with one Idempotency-Key both create the checkout of
/// the same purchase id, and only one of them is recorded — the provider must give both the same checkout (Stripe: its
/// own `Idempotency-Key` header), so the buyer can never be charged twice.
public protocol PaymentProvider: Sendable {
    /// `sandbox`, `stripe`: `PurchaseStarted.provider`.
    var name: String { get }
    /// Opens a checkout for `request`.
    func createCheckout(_ request: CheckoutRequest) async throws -> CheckoutSession
    /// Where an open checkout is paid, for answering a repeated request (`nil` when unknown).
    func checkoutURL(reference: String, purchaseId: UUID) async throws -> String?
    /// Asks for a refund; the refund is confirmed later by a `charge.refunded` webhook (the sandbox sends it through
    /// `deliver` before returning).
    func refund(_ request: RefundRequest, deliver: WebhookDelivery) async throws
}

/// A provider call failed (network, refusal): 502 `payment-provider-unavailable`.
public struct PaymentProviderError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
