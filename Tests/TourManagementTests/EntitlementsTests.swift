import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: the entitlements read model on both backends")
struct EntitlementsTests {
    /// Runs `body` over fresh storage with the entitlements projection (caught up by the body when it needs).
    static func withEntitlements(_ backend: TestBackend,
                                 _ body: @Sendable (AnyEventStore, any ProjectionRunning, Entitlements) async throws -> Void) async throws {
        try await backend.withServiceStorage("tour-management", logger: MediaTestSupport.quiet) { storage in
            try await body(AnyEventStore(storage.store),
                           storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection()),
                           storage.entitlementReads)
        }
    }

    @Test("acquisition and completed purchases grant, a refund revokes, other events change nothing; rebuild = live",
          arguments: TestBackend.enabled)
    func grantsAndRevokes(backend: TestBackend) async throws {
        try await Self.withEntitlements(backend) { store, projection, entitlements in
            let traveller = UUID.v4(), guide = UUID.v4(), free = UUID.v4(), paid = UUID.v4(), refunded = UUID.v4()
            let t0 = Date(timeIntervalSince1970: 1_795_341_600)
            let price = Money(amountMinor: 1_299, currency: .eur), fee = Money(amountMinor: 260, currency: .eur)
            let earnings = Money(amountMinor: 1_039, currency: .eur)
            func append(_ event: some EventPayload, tour: UUID) async throws {
                _ = try await store.append(try event.newEvent(), to: "access-\(tour.uuidString.lowercased())-\(traveller.uuidString.lowercased())",
                                           expectedVersion: .any)
            }
            try await append(TourAcquired(tourId: free, userId: traveller, guideId: guide, revision: 1, acquiredAt: t0), tour: free)
            for (tour, purchase, offset) in [(paid, UUID.v4(), 60.0), (refunded, UUID.v4(), 120.0)] {
                try await append(PurchaseStarted(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, revision: 3, price: price,
                                                 platformFee: fee, guideEarnings: earnings, feeBasisPoints: 2_000, provider: "sandbox",
                                                 providerReference: "ref", startedAt: t0.addingTimeInterval(offset)), tour: tour)
                try await append(PurchaseCompleted(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, revision: 3, price: price,
                                                   platformFee: fee, guideEarnings: earnings, providerPaymentId: "pi",
                                                   completedAt: t0.addingTimeInterval(offset + 1)), tour: tour)
                if tour == refunded {
                    try await append(PurchaseRefunded(purchaseId: purchase, tourId: tour, userId: traveller, guideId: guide, amount: price,
                                                      platformFee: fee, guideEarnings: earnings, refundedAt: t0.addingTimeInterval(offset + 2)),
                                     tour: tour)
                }
            }
            let failed = UUID.v4()
            try await append(PurchaseFailed(purchaseId: UUID.v4(), tourId: failed, userId: traveller, reason: "card_declined", failedAt: t0),
                             tour: failed)
            try await projection.catchUp()

            #expect(try await entitlements.isEntitled(user: traveller, tour: free))
            #expect(try await entitlements.isEntitled(user: traveller, tour: paid))
            #expect(try await !entitlements.isEntitled(user: traveller, tour: refunded))
            #expect(try await !entitlements.isEntitled(user: traveller, tour: failed))
            #expect(try await !entitlements.isEntitled(user: guide, tour: paid))
            let owned = try await entitlements.owned(by: traveller)
            #expect(owned.map(\.tourId) == [paid, free], "most recent first")
            #expect(owned[0].source == .purchase && owned[0].price == price && owned[0].revision == 3)
            #expect(owned[1].source == .free && owned[1].price.amountMinor == 0)
            #expect(try await entitlements.entitlement(tour: refunded, user: traveller)?.revokedAt == t0.addingTimeInterval(122))

            try await projection.rebuild()
            #expect(try await entitlements.owned(by: traveller) == owned)
        }
    }
}
