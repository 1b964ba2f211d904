import Foundation

// The published language of `tour-management` on `waypoint.tours`: buying a tour (issue 6, marketplace part).
//
// Stream `access-<tourId>-<userId>` (the key on the topic): one traveller's access to one tour — purchases
// (`PurchaseStarted` … `PurchaseRefunded`) and free acquisitions (`TourAcquired`). Whether a user owns a tour is decided
// on this one stream, so two concurrent purchases cannot both succeed. Amounts are fixed in the events at the time they
// happen (price, platform fee, guide earnings), so statistics never depend on today's prices or fee rate. User ids are
// pseudonymous.

/// A traveller asked to buy a tour; the payment provider has it now.
public struct PurchaseStarted: IntegrationEvent {
    public static let eventType = "PurchaseStarted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var purchaseId: UUID
    public var tourId: UUID
    /// The buyer.
    public var userId: UUID
    /// The tour's guide (who earns).
    public var guideId: UUID
    /// The published revision bought.
    public var revision: Int
    /// What the traveller pays.
    public var price: Money
    /// The platform's share of `price` (rounded half up to the minor unit).
    public var platformFee: Money
    /// `price - platformFee`.
    public var guideEarnings: Money
    /// The fee rate applied, basis points (2000 = 20 %).
    public var feeBasisPoints: Int
    /// `sandbox`, `stripe`, …
    public var provider: String
    /// The provider's reference of the payment (checkout session, payment intent).
    public var providerReference: String
    public var startedAt: Date

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, guideId: UUID, revision: Int, price: Money, platformFee: Money,
                guideEarnings: Money, feeBasisPoints: Int, provider: String, providerReference: String, startedAt: Date) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.price = price
        self.platformFee = platformFee
        self.guideEarnings = guideEarnings
        self.feeBasisPoints = feeBasisPoints
        self.provider = provider
        self.providerReference = providerReference
        self.startedAt = startedAt
    }
}

/// The provider confirmed the payment: the traveller owns the tour.
public struct PurchaseCompleted: IntegrationEvent {
    public static let eventType = "PurchaseCompleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// The published revision bought (as in `PurchaseStarted`).
    public var revision: Int
    public var price: Money
    public var platformFee: Money
    public var guideEarnings: Money
    /// The provider's id of the confirmed payment.
    public var providerPaymentId: String
    public var completedAt: Date

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, guideId: UUID, revision: Int, price: Money, platformFee: Money,
                guideEarnings: Money, providerPaymentId: String, completedAt: Date) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.price = price
        self.platformFee = platformFee
        self.guideEarnings = guideEarnings
        self.providerPaymentId = providerPaymentId
        self.completedAt = completedAt
    }
}

/// The provider declined or the payment expired; nothing was charged.
public struct PurchaseFailed: IntegrationEvent {
    public static let eventType = "PurchaseFailed"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    /// The provider's reason code, e.g. `card_declined`, `expired`.
    public var reason: String
    public var failedAt: Date

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, reason: String, failedAt: Date) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.reason = reason
        self.failedAt = failedAt
    }
}

/// A completed purchase was refunded (within 14 days): the traveller no longer owns the tour.
public struct PurchaseRefunded: IntegrationEvent {
    public static let eventType = "PurchaseRefunded"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// What goes back to the traveller (the whole price).
    public var amount: Money
    /// The platform fee given back.
    public var platformFee: Money
    /// The guide earnings reversed.
    public var guideEarnings: Money
    public var refundedAt: Date

    public init(purchaseId: UUID, tourId: UUID, userId: UUID, guideId: UUID, amount: Money, platformFee: Money, guideEarnings: Money,
                refundedAt: Date) {
        self.purchaseId = purchaseId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.amount = amount
        self.platformFee = platformFee
        self.guideEarnings = guideEarnings
        self.refundedAt = refundedAt
    }
}

/// A traveller took a free tour: they own it.
public struct TourAcquired: IntegrationEvent {
    public static let eventType = "TourAcquired"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var revision: Int
    public var acquiredAt: Date

    public init(tourId: UUID, userId: UUID, guideId: UUID, revision: Int, acquiredAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.acquiredAt = acquiredAt
    }
}
