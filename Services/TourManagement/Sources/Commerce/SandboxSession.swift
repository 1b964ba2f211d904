import Foundation

/// A checkout of the sandbox provider: what its confirm and decline routes need to send the webhook.
public struct SandboxSession: Codable, Sendable, Hashable {
    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var amountMinor: Int64
    public var currency: String
    /// `sbx_cs_…`: `PurchaseStarted.providerReference`.
    public var reference: String
    /// `sbx_pi_…`: `PurchaseCompleted.providerPaymentId`.
    public var paymentIntent: String
    public var createdAt: Date
    public var expiresAt: Date
}
