import Contracts
import ContractTesting
import Foundation
import Testing

/// Producer side of `waypoint.tours` (marketplace and offline part): every event keeps its pinned JSON shape
/// (`Tests/Golden/waypoint.tours/`).
@Suite("tour-management: published commerce contracts on waypoint.tours")
struct CommerceContractTests {
    static let tour = TourContractTests.tour
    static let guide = TourContractTests.guide
    static let traveller = UUID(uuidString: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e01")!
    static let moderator = UUID(uuidString: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e02")!
    static let purchase = UUID(uuidString: "c0ffee00-1234-4abc-8def-0123456789ab")!
    static let review = UUID(uuidString: "c0ffee00-1234-4abc-8def-0123456789ac")!
    static let at = TourContractTests.at
    static let price = Money(amountMinor: 1_299, currency: .eur)
    static let fee = Money(amountMinor: 260, currency: .eur)
    static let earnings = Money(amountMinor: 1_039, currency: .eur)
    static let text = SealedPersonalData(subject: traveller.uuidString.lowercased(), sealed: "bm9uY2UtY2lwaGVydGV4dC10YWc=")
    static let reply = SealedPersonalData(subject: guide.uuidString.lowercased(), sealed: "cmVwbHktY2lwaGVydGV4dA==")

    static let examples: [any IntegrationEvent] = [
        PurchaseStarted(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, revision: 2, price: price, platformFee: fee,
                        guideEarnings: earnings, feeBasisPoints: 2_000, provider: "sandbox", providerReference: "sbx_cs_0001", startedAt: at),
        PurchaseCompleted(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, revision: 2, price: price, platformFee: fee,
                          guideEarnings: earnings, providerPaymentId: "sbx_pi_0001", completedAt: at),
        PurchaseFailed(purchaseId: purchase, tourId: tour, userId: traveller, reason: "card_declined", failedAt: at),
        PurchaseRefunded(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, amount: price, platformFee: fee,
                         guideEarnings: earnings, refundedAt: at),
        TourAcquired(tourId: tour, userId: traveller, guideId: guide, revision: 1, acquiredAt: at),
        ReviewPosted(reviewId: review, tourId: tour, userId: traveller, guideId: guide, rating: 5, text: text, postedAt: at),
        ReviewEdited(reviewId: review, tourId: tour, userId: traveller, guideId: guide, previousRating: 5, rating: 4, text: nil, editedAt: at),
        ReviewReplied(reviewId: review, tourId: tour, guideId: guide, reply: reply, repliedAt: at),
        ReviewHidden(reviewId: review, tourId: tour, userId: traveller, guideId: guide, rating: 4, hiddenBy: moderator, reason: "moderation",
                     hiddenAt: at),
        TourFavourited(tourId: tour, userId: traveller, favouritedAt: at),
        TourUnfavourited(tourId: tour, userId: traveller, unfavouritedAt: at),
        TourStarted(tourId: tour, userId: traveller, guideId: guide, revision: 2, startedAt: at),
        StopCompleted(tourId: tour, userId: traveller, stopId: TourContractTests.stop1, completedAt: at.addingTimeInterval(-600),
                      recordedAt: at),
        TourCompleted(tourId: tour, userId: traveller, guideId: guide, revision: 2, completedAt: at),
        TourViewed(tourId: tour, guideId: guide, viewer: "user:\(traveller.uuidString.lowercased())", userId: traveller, viewedAt: at),
        BundlePublished(tourId: tour, revision: 2, version: 3, sha256: String(repeating: "cd", count: 32), sizeBytes: 48_128, createdAt: at,
                        expiresAt: at.addingTimeInterval(30 * 86_400)),
    ]

    @Test("every marketplace and offline event matches its golden file", arguments: 0..<examples.count)
    func golden(index: Int) throws {
        try Self.verify(Self.examples[index])
    }

    private static func verify<Event: IntegrationEvent>(_ event: Event) throws {
        try GoldenFile.verify(event)
        #expect(Event.topic == .tours)
    }
}
