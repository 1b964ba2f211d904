import Contracts
import EventSourcing
import Foundation
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: payment webhooks (Stripe's signature scheme, replays, bad input)")
struct PaymentWebhookTests {
    static let secret = "whsec_test_webhooks"
    static let configuration = CommerceConfiguration(webhookSecret: secret)

    @Test("Stripe-Signature: known vector, several v1, v0 ignored, malformed, missing, stale and future timestamps")
    func signatures() throws {
        let body = Array(#"{"id":"evt_1","type":"ping"}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        // HMAC-SHA256("whsec_test_webhooks", "1700000000.{…}"), computed independently: `printf '%s' '1700000000.{…}' | openssl dgst -sha256 -hmac whsec_test_webhooks`.
        let good = StripeSignature.signature(payload: body, secret: Self.secret, timestamp: 1_700_000_000)
        #expect(good == "687f63e7c4c5bc0e2a14d94aa09c71354340eff6acbaec6aa39889453a346998")
        #expect(StripeSignature.header(payload: body, secret: Self.secret, at: now) == "t=1700000000,v1=\(good)")

        func verify(_ header: String?, at date: Date = now) throws {
            try StripeSignature.verify(payload: body, header: header, secret: Self.secret, tolerance: 300, now: date)
        }
        try verify("t=1700000000,v1=\(good)")
        try verify("t=1700000000,v1=\(String(repeating: "0", count: 64)),v1=\(good.uppercased()),v0=abc", at: now.addingTimeInterval(300))
        try verify("t=1700000000,v1=\(good)", at: now.addingTimeInterval(-300))
        #expect(throws: StripeSignature.Failure.missingHeader) { try verify(nil) }
        #expect(throws: StripeSignature.Failure.missingHeader) { try verify("") }
        #expect(throws: StripeSignature.Failure.malformedHeader) { try verify("v1=\(good)") }
        #expect(throws: StripeSignature.Failure.malformedHeader) { try verify("t=1700000000,v0=\(good)") }
        #expect(throws: StripeSignature.Failure.malformedHeader) { try verify("t=soon,v1=\(good)") }
        #expect(throws: StripeSignature.Failure.stale(timestamp: 1_700_000_000)) { try verify("t=1700000000,v1=\(good)", at: now.addingTimeInterval(301)) }
        #expect(throws: StripeSignature.Failure.stale(timestamp: 1_700_000_000)) { try verify("t=1700000000,v1=\(good)", at: now.addingTimeInterval(-301)) }
        #expect(throws: StripeSignature.Failure.mismatch) { try verify("t=1700000001,v1=\(good)", at: now) }
        #expect(throws: StripeSignature.Failure.mismatch) {
            try StripeSignature.verify(payload: body + [0x20], header: "t=1700000000,v1=\(good)", secret: Self.secret, tolerance: 300, now: now)
        }
        #expect(throws: StripeSignature.Failure.mismatch) {
            try StripeSignature.verify(payload: body, header: "t=1700000000,v1=\(good)", secret: "whsec_other", tolerance: 300, now: now)
        }
        #expect(StripeSignature.Failure.mismatch.problem.status == .badRequest)
        #expect(StripeSignature.Failure.stale(timestamp: 0).problem.code == "stale-signature")
    }

    /// A started purchase of a fresh tour, and the body of Stripe's `checkout.session.completed` for it.
    static func pending(_ f: CommerceFixture) async throws -> (tour: UUID, user: UUID, purchase: UUID, body: [UInt8]) {
        let tour = UUID.v4(), user = UUID.v4()
        try await f.publish(tour, guide: UUID.v4(), price: 1_299)
        let purchase = try #require(try await f.purchases.purchase(tour: tour, user: user, idempotencyKey: "k").purchase.purchaseId)
        let body = StripeEventBody.make(type: "checkout.session.completed", created: f.clock.now(), object: [
            "id": "cs_1", "object": "checkout.session", "payment_status": "paid", "payment_intent": "pi_1", "amount_total": 1_299,
            "currency": "eur", "metadata": StripeEventBody.metadata(purchaseId: purchase, tourId: tour, userId: user),
        ])
        return (tour, user, purchase, body)
    }

    static func expectProblem(_ code: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected problem \(code)")
        } catch let problem as Problem {
            #expect(problem.status == .badRequest && problem.code == code)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("forged (other secret, tampered body, no signature) and stale webhooks are 400 and grant nothing", arguments: TestBackend.enabled)
    func forgedAndStale(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend, configuration: Self.configuration) { f in
            let p = try await Self.pending(f)
            let now = f.clock.now()
            await Self.expectProblem("invalid-signature") {
                _ = try await f.purchases.receiveWebhook(body: p.body, signature: StripeSignature.header(payload: p.body, secret: "whsec_forger", at: now))
            }
            var tampered = p.body
            tampered.replaceSubrange(tampered.startIndex..<tampered.startIndex, with: Array(" ".utf8))
            await Self.expectProblem("invalid-signature") {
                _ = try await f.purchases.receiveWebhook(body: tampered, signature: StripeSignature.header(payload: p.body, secret: Self.secret, at: now))
            }
            await Self.expectProblem("missing-signature") { _ = try await f.purchases.receiveWebhook(body: p.body, signature: nil) }
            await Self.expectProblem("stale-signature") {
                _ = try await f.purchases.receiveWebhook(
                    body: p.body, signature: StripeSignature.header(payload: p.body, secret: Self.secret, at: now.addingTimeInterval(-301)))
            }
            await Self.expectProblem("malformed-event") {
                let junk = Array("not json".utf8)
                _ = try await f.purchases.receiveWebhook(body: junk, signature: StripeSignature.header(payload: junk, secret: Self.secret, at: now))
            }
            #expect(try await !f.isEntitled(p.user, p.tour))
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted"])
        }
    }

    @Test("a replayed webhook (same body and signature, or a re-signed duplicate) grants once", arguments: TestBackend.enabled)
    func replays(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend, configuration: Self.configuration) { f in
            let p = try await Self.pending(f)
            let header = StripeSignature.header(payload: p.body, secret: Self.secret, at: f.clock.now())
            #expect(try await f.purchases.receiveWebhook(body: p.body, signature: header).outcome == .completed)
            f.clock.advance(60)
            #expect(try await f.purchases.receiveWebhook(body: p.body, signature: header).outcome == .duplicate)
            let resigned = StripeSignature.header(payload: p.body, secret: Self.secret, at: f.clock.now())
            let concurrent = await CommerceTestSupport.concurrently(4) { _ in
                try await f.purchases.receiveWebhook(body: p.body, signature: resigned).outcome
            }
            #expect(try concurrent.map { try $0.get() }.allSatisfy { $0 == .duplicate })
            f.clock.advance(300)
            await Self.expectProblem("stale-signature") { _ = try await f.purchases.receiveWebhook(body: p.body, signature: header) }
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted", "PurchaseCompleted"])
            #expect(try await f.isEntitled(p.user, p.tour))
        }
    }

    @Test("concurrent deliveries of one completion append one PurchaseCompleted", arguments: TestBackend.enabled)
    func concurrentDeliveries(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend, configuration: Self.configuration) { f in
            let p = try await Self.pending(f)
            let header = StripeSignature.header(payload: p.body, secret: Self.secret, at: f.clock.now())
            let outcomes = try await CommerceTestSupport.concurrently(6) { _ in
                try await f.purchases.receiveWebhook(body: p.body, signature: header).outcome
            }.map { try $0.get() }
            #expect(outcomes.filter { $0 == .completed }.count == 1 && outcomes.filter { $0 == .duplicate }.count == 5)
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted", "PurchaseCompleted"])
        }
    }

    @Test("verified events that name nothing, disagree with the purchase or do not apply are acknowledged and change nothing")
    func ignoredEvents() async throws {
        try await CommerceTestSupport.withCommerce(.sqlite, configuration: Self.configuration) { f in
            let p = try await Self.pending(f)
            let metadata = StripeEventBody.metadata(purchaseId: p.purchase, tourId: p.tour, userId: p.user)
            func send(_ type: String, _ object: [String: Any]) async throws -> AccessOutcome {
                let body = StripeEventBody.make(type: type, created: f.clock.now(), object: object)
                return try await f.purchases.receiveWebhook(body: body, signature: StripeSignature.header(payload: body, secret: Self.secret,
                                                                                                          at: f.clock.now())).outcome
            }
            #expect(try await send("checkout.session.completed", ["id": "cs_1", "payment_status": "paid"]) == .ignored, "no metadata")
            #expect(try await send("checkout.session.completed", ["id": "cs_1", "metadata": StripeEventBody.metadata(
                purchaseId: UUID.v4(), tourId: p.tour, userId: p.user)]) == .ignored, "unknown purchase")
            #expect(try await send("checkout.session.completed", ["id": "cs_1", "metadata": StripeEventBody.metadata(
                purchaseId: p.purchase, tourId: p.tour, userId: UUID.v4())]) == .ignored, "another user's stream")
            #expect(try await send("checkout.session.completed", ["payment_status": "paid", "amount_total": 1, "currency": "eur",
                                                                  "metadata": metadata]) == .ignored, "amount differs")
            #expect(try await send("checkout.session.completed", ["payment_status": "unpaid", "metadata": metadata]) == .ignored,
                    "delayed payment method: wait for async_payment_succeeded")
            #expect(try await send("customer.created", ["metadata": metadata]) == .ignored)
            #expect(try await send("charge.refunded", ["refunded": true, "metadata": metadata]) == .ignored, "not completed yet")
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted"])

            #expect(try await send("checkout.session.async_payment_succeeded", ["payment_intent": "pi_9", "metadata": metadata]) == .completed)
            #expect(try await send("payment_intent.payment_failed", ["metadata": metadata]) == .ignored, "only pending purchases fail")
            #expect(try await send("charge.refunded", ["refunded": false, "amount_refunded": 100, "metadata": metadata]) == .ignored,
                    "a partial refund keeps the tour")
            #expect(try await f.isEntitled(p.user, p.tour))
            #expect(try await send("charge.refunded", ["refunded": true, "metadata": metadata]) == .refunded)
            #expect(try await send("charge.refunded", ["refunded": true, "metadata": metadata]) == .duplicate)
            #expect(try await !f.isEntitled(p.user, p.tour))
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted", "PurchaseCompleted", "PurchaseRefunded"])
        }
    }

    @Test("a declined card then a successful one in the same checkout completes the purchase")
    func failedThenPaid() async throws {
        try await CommerceTestSupport.withCommerce(.sqlite, configuration: Self.configuration) { f in
            let p = try await Self.pending(f)
            let metadata = StripeEventBody.metadata(purchaseId: p.purchase, tourId: p.tour, userId: p.user)
            let failed = StripeEventBody.make(type: "payment_intent.payment_failed", created: f.clock.now(), object: [
                "id": "pi_1", "object": "payment_intent", "last_payment_error": ["code": "card_declined", "decline_code": "insufficient_funds"],
                "metadata": metadata,
            ])
            let header = StripeSignature.header(payload: failed, secret: Self.secret, at: f.clock.now())
            #expect(try await f.purchases.receiveWebhook(body: failed, signature: header).outcome == .failed)
            let (state, _) = try await f.purchases.load(tour: p.tour, user: p.user)
            #expect(state.purchase(p.purchase)?.failureReason == "insufficient_funds")
            let completed = StripeSignature.header(payload: p.body, secret: Self.secret, at: f.clock.now())
            #expect(try await f.purchases.receiveWebhook(body: p.body, signature: completed).outcome == .completed)
            #expect(try await f.isEntitled(p.user, p.tour))
        }
    }
}
