import Foundation

// The published language of `tour-management` on `waypoint.tours`, marketplace and offline part (issue 6).
//
// Streams (keys on the topic):
// - `access-<tourId>-<userId>`: one traveller's access to one tour — purchases (`PurchaseStarted` … `PurchaseRefunded`)
//   and free acquisitions (`TourAcquired`). Whether a user owns a tour is decided on this one stream, so two concurrent
//   purchases cannot both succeed.
// - `review-<tourId>-<userId>`: the traveller's review of the tour and the guide's reply.
// - `favourites-<userId>`: a traveller's favourite tours.
// - `progress-<tourId>-<userId>`: a traveller walking a tour.
// - `views-<tourId>`: detail views (deduplicated per viewer per tour per hour).
// - `bundle-<tourId>`: signed offline bundles of the tour's published revisions.
//
// Amounts are fixed in the events at the time they happen (price, platform fee, guide earnings), so statistics never
// depend on today's prices or fee rate. User ids are pseudonymous; free text written by a person (review text, reply)
// is sealed with that person's key (`SealedPersonalData`), so erasing the key erases the words.

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

/// A traveller who owns the tour rated it (one review per traveller per tour).
public struct ReviewPosted: IntegrationEvent {
    public static let eventType = "ReviewPosted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// 1–5.
    public var rating: Int
    /// Plain text (control characters stripped), ≤ 2,000 characters, sealed with the reviewer's key; `nil` = no text.
    public var text: SealedPersonalData?
    public var postedAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, rating: Int, text: SealedPersonalData?, postedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.rating = rating
        self.text = text
        self.postedAt = postedAt
    }
}

/// The reviewer changed their review (whole new rating and text).
public struct ReviewEdited: IntegrationEvent {
    public static let eventType = "ReviewEdited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// The rating before the edit (aggregates move it to `rating`).
    public var previousRating: Int
    public var rating: Int
    public var text: SealedPersonalData?
    public var editedAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, previousRating: Int, rating: Int, text: SealedPersonalData?,
                editedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.previousRating = previousRating
        self.rating = rating
        self.text = text
        self.editedAt = editedAt
    }
}

/// The tour's guide answered a review (once).
public struct ReviewReplied: IntegrationEvent {
    public static let eventType = "ReviewReplied"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var guideId: UUID
    /// Plain text ≤ 2,000 characters, sealed with the guide's key.
    public var reply: SealedPersonalData
    public var repliedAt: Date

    public init(reviewId: UUID, tourId: UUID, guideId: UUID, reply: SealedPersonalData, repliedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.guideId = guideId
        self.reply = reply
        self.repliedAt = repliedAt
    }
}

/// A moderator hid a review (after reports), or its author's account was erased: it no longer shows or counts.
public struct ReviewHidden: IntegrationEvent {
    public static let eventType = "ReviewHidden"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// The rating that stops counting.
    public var rating: Int
    /// The moderator; `nil` when the system hid it (author erased).
    public var hiddenBy: UUID?
    /// `moderation` or `author-erased`.
    public var reason: String
    public var hiddenAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, rating: Int, hiddenBy: UUID?, reason: String, hiddenAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.rating = rating
        self.hiddenBy = hiddenBy
        self.reason = reason
        self.hiddenAt = hiddenAt
    }
}

/// A traveller marked a tour as a favourite.
public struct TourFavourited: IntegrationEvent {
    public static let eventType = "TourFavourited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var favouritedAt: Date

    public init(tourId: UUID, userId: UUID, favouritedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.favouritedAt = favouritedAt
    }
}

/// A traveller removed a tour from their favourites.
public struct TourUnfavourited: IntegrationEvent {
    public static let eventType = "TourUnfavourited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var unfavouritedAt: Date

    public init(tourId: UUID, userId: UUID, unfavouritedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.unfavouritedAt = unfavouritedAt
    }
}

/// A traveller who owns the tour started walking it (revision `revision`).
public struct TourStarted: IntegrationEvent {
    public static let eventType = "TourStarted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var revision: Int
    public var startedAt: Date

    public init(tourId: UUID, userId: UUID, guideId: UUID, revision: Int, startedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.startedAt = startedAt
    }
}

/// A stop was reached; `completedAt` is the client's clock (completions recorded offline arrive later, last write wins
/// per stop).
public struct StopCompleted: IntegrationEvent {
    public static let eventType = "StopCompleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var stopId: UUID
    public var completedAt: Date
    /// When the service recorded it.
    public var recordedAt: Date

    public init(tourId: UUID, userId: UUID, stopId: UUID, completedAt: Date, recordedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.stopId = stopId
        self.completedAt = completedAt
        self.recordedAt = recordedAt
    }
}

/// Every stop of the tour is completed.
public struct TourCompleted: IntegrationEvent {
    public static let eventType = "TourCompleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var revision: Int
    public var completedAt: Date

    public init(tourId: UUID, userId: UUID, guideId: UUID, revision: Int, completedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.revision = revision
        self.completedAt = completedAt
    }
}

/// Someone opened a tour's detail (once per viewer per tour per hour).
public struct TourViewed: IntegrationEvent {
    public static let eventType = "TourViewed"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var guideId: UUID
    /// Opaque, stable key of the viewer for unique-viewer counts: `user:<uuid>` for signed-in users, `client:<hash>` for
    /// anonymous clients (a keyed hash — no address or agent string leaves the service).
    public var viewer: String
    /// The signed-in viewer, if any.
    public var userId: UUID?
    public var viewedAt: Date

    public init(tourId: UUID, guideId: UUID, viewer: String, userId: UUID?, viewedAt: Date) {
        self.tourId = tourId
        self.guideId = guideId
        self.viewer = viewer
        self.userId = userId
        self.viewedAt = viewedAt
    }
}

/// A signed offline bundle of a published revision is available.
public struct BundlePublished: IntegrationEvent {
    public static let eventType = "BundlePublished"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var revision: Int
    /// 1, 2, … per tour: a new revision makes a new bundle version.
    public var version: Int
    /// SHA-256 of the bundle file, hex.
    public var sha256: String
    public var sizeBytes: Int64
    public var createdAt: Date
    public var expiresAt: Date

    public init(tourId: UUID, revision: Int, version: Int, sha256: String, sizeBytes: Int64, createdAt: Date, expiresAt: Date) {
        self.tourId = tourId
        self.revision = revision
        self.version = version
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
