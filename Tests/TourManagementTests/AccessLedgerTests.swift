import Contracts
import EventSourcing
import Foundation
import Testing
import TourManagement

/// The access stream's rules as pure functions: no store, no provider, no server.
@Suite("Access ledger: decide and apply on the access stream's state")
struct AccessLedgerTests {
    let tour = UUID.v4(), guide = UUID.v4(), traveller = UUID.v4()
    let at = Date(timeIntervalSince1970: 1_790_000_000)
    let configuration = CommerceConfiguration()

    func started(_ purchaseId: UUID, at date: Date) -> PurchaseStarted {
        let price = Money(amountMinor: 1_000, currency: .eur)
        return PurchaseStarted(purchaseId: purchaseId, tourId: tour, userId: traveller, guideId: guide, revision: 2, price: price,
                               platformFee: Money(amountMinor: 200, currency: .eur), guideEarnings: Money(amountMinor: 800, currency: .eur),
                               feeBasisPoints: 2_000, provider: "sandbox", providerReference: "sbx_cs_1", startedAt: date)
    }

    func fold(_ events: [AccessEvent], onto state: AccessState = AccessLedger.initialState) -> AccessState {
        events.reduce(state, AccessLedger.apply)
    }

    @Test("a purchase starts pending, completes with its payment, then is refunded; a repeated confirmation changes nothing")
    func purchaseLifecycle() throws {
        let id = UUID.v4()
        var state = fold(AccessLedger.decide(.start(started(id, at: at)), AccessLedger.initialState))
        #expect(state.purchase(id)?.status == .pending && !state.owns)

        let completion = AccessLedger.decide(.complete(purchaseId: id, paymentId: "pi_1", at: at), state)
        state = fold(completion, onto: state)
        #expect(state.owns && state.owningPurchase?.providerPaymentId == "pi_1")
        #expect(AccessLedger.decide(.complete(purchaseId: id, paymentId: "pi_1", at: at), state).isEmpty)
        #expect(AccessLedger.complete(id, paymentId: "pi_1", at: at, state).1 == .duplicate)

        state = fold(AccessLedger.decide(.refund(purchaseId: id, at: at), state), onto: state)
        #expect(state.purchase(id)?.status == .refunded && !state.owns)
        #expect(AccessLedger.decide(.fail(purchaseId: id, reason: "expired", at: at), state).isEmpty)
    }

    @Test("a free acquisition keeps its request id as event id, and the same key replays it")
    func acquisitionKeepsRequestID() throws {
        let requestID = AccessStream.requestID(tour: tour, user: traveller, idempotencyKey: "k")
        let acquired = TourAcquired(tourId: tour, userId: traveller, guideId: guide, revision: 1, acquiredAt: at)
        let events = AccessLedger.decide(.acquire(acquired, requestID: requestID), AccessLedger.initialState)
        #expect(events.compactMap(AccessLedger.eventID(of:)) == [requestID])
        let state = fold(events)
        #expect(state.acquisition?.eventID == requestID && state.owns)
        guard case .replayAcquisition(let record) = try AccessLedger.checkStart(requestID, state, now: at, configuration: configuration) else {
            Issue.record("the same key should replay the acquisition")
            return
        }
        #expect(record.eventID == requestID)
        #expect(throws: CommerceError.alreadyOwned) {
            try AccessLedger.checkStart(UUID.v4(), state, now: at, configuration: configuration)
        }
    }

    @Test("a new purchase closes pending ones whose checkout ran out, which still block while they may be paid")
    func stalePendingPurchases() throws {
        let old = UUID.v4()
        let state = fold([.started(started(old, at: at))])
        let soon = at.addingTimeInterval(configuration.checkoutLifetime)
        #expect(throws: CommerceError.purchasePending(old)) {
            try AccessLedger.checkStart(UUID.v4(), state, now: soon, configuration: configuration)
        }
        let later = at.addingTimeInterval(configuration.checkoutLifetime + configuration.pendingGrace + 1)
        guard case .proceed = try AccessLedger.checkStart(UUID.v4(), state, now: later, configuration: configuration) else {
            Issue.record("a long expired checkout should not block")
            return
        }
        let next = UUID.v4()
        let events = AccessLedger.decide(.start(started(next, at: later)), state)
        #expect(events.count == 2)
        #expect(events.allSatisfy { AccessLedger.eventID(of: $0) == nil })
        let after = fold(events, onto: state)
        #expect(after.purchase(old)?.failureReason == "expired" && after.purchase(old)?.failedAt == later)
        #expect(after.purchase(next)?.status == .pending)
    }
}
