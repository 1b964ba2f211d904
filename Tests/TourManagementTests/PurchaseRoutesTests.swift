import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: purchases, webhook, owned tours and exchange rates over HTTP")
struct PurchaseRoutesTests {
    /// The marketplace routes on a ServiceApplication of their own (as TourManagementServer mounts them), over fresh storage.
    static func withRoutes(_ backend: TestBackend, _ body: @Sendable (any TestClientProtocol, CommerceFixture) async throws -> Void) async throws {
        try await CommerceTestSupport.withCommerce(backend, configuration: CommerceConfiguration(webhookSecret: PaymentWebhookTests.secret)) { f in
            let app = try ServiceApplication(
                configuration: ServiceConfiguration(serviceName: "tour-management", port: 0, logLevel: .warning), metrics: ServiceMetrics(),
                keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]), logger: CommerceTestSupport.quiet
            ) { routes in
                CommerceRoutes(purchases: f.purchases, entitlements: f.entitlements, exchangeRates: f.commerce.exchangeRates).addRoutes(to: routes)
            }
            try await app.test(.router) { client in try await body(client, f) }
        }
    }

    static func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, bytes: [UInt8]? = nil,
                     token: String? = nil, headers extra: HTTPFields = [:]) async throws -> JSONReply {
        try await client.sendJSON(method, uri, json: json, bytes: bytes, token: token, headers: extra)
    }

    static func purchase(_ client: any TestClientProtocol, _ tour: UUID, key: String?, token: String) async throws -> JSONReply {
        var headers = HTTPFields()
        if let key { headers[CommerceRoutes.idempotencyKeyHeader] = key }
        return try await send(client, .post, "/v1/tours/\(tour.uuidString.lowercased())/purchase", token: token, headers: headers)
    }

    @Test("buy (202 pending) → sandbox confirm → GET /v1/me/tours lists it with bundle null; the same key is replayed",
          arguments: TestBackend.enabled)
    func purchaseFlow(backend: TestBackend) async throws {
        try await Self.withRoutes(backend) { client, f in
            let tour = UUID.v4(), free = UUID.v4(), guide = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: guide, price: 1_299, revision: 2, title: "Krems old town")
            try await f.publish(free, guide: guide, price: 0, title: "Free walk")
            let token = try await TokenForge.token(traveller)

            let started = try await Self.purchase(client, tour, key: "key-1", token: token)
            #expect(started.status == 202 && started.json["status"] as? String == "pending")
            let price = started.json["price"] as? [String: Any]
            #expect(price?["amountMinor"] as? Int == 1_299 && price?["currency"] as? String == "EUR")
            let purchaseId = try #require(started.json["purchaseId"] as? String)
            let checkout = try #require(started.json["checkoutUrl"] as? String)
            #expect(checkout == "/v1/payments/sandbox/\(purchaseId)/confirm" && started.json["expiresAt"] is String)
            let replayed = try await Self.purchase(client, tour, key: "key-1", token: token)
            #expect(replayed.status == 202 && replayed.json["purchaseId"] as? String == purchaseId)
            #expect(replayed.headers[CommerceRoutes.replayedHeader] == "true")

            let otherToken = try await TokenForge.token(UUID.v4())
            #expect(try await Self.send(client, .post, checkout, token: otherToken).status == 404, "only the buyer pays their checkout")
            let paid = try await Self.send(client, .post, checkout, token: token)
            #expect(paid.status == 200 && paid.json["status"] as? String == "completed" && paid.json["refundableUntil"] is String)

            f.clock.advance(60)
            let acquired = try await Self.purchase(client, free, key: "key-2", token: token)
            #expect(acquired.status == 201 && acquired.json["status"] as? String == "acquired" && acquired.json["purchaseId"] == nil)
            #expect(try await Self.purchase(client, free, key: "key-2", token: token).status == 200)

            try await f.entitlementsProjection.catchUp()
            let mine = try await Self.send(client, .get, "/v1/me/tours", token: token)
            #expect(mine.status == 200)
            let tours = try #require(mine.json["tours"] as? [[String: Any]])
            #expect(tours.compactMap { $0["tourId"] as? String } == [free, tour].map { $0.uuidString.lowercased() }, "most recent first")
            #expect(tours[0]["source"] as? String == "free" && tours[0]["title"] as? String == "Free walk")
            #expect(tours[1]["source"] as? String == "purchase" && tours[1]["purchaseId"] as? String == purchaseId)
            #expect(tours[1]["revision"] as? Int == 2 && tours[1]["latestRevision"] as? Int == 2)
            #expect(tours.allSatisfy { $0.keys.contains("bundle") && $0["bundle"] is NSNull }, "bundle is null until bundles exist")
            #expect((try await Self.send(client, .get, "/v1/me/tours", token: otherToken).json["tours"] as? [Any])?.isEmpty == true)
            #expect(try await Self.send(client, .get, "/v1/me/tours").status == 401)
        }
    }

    @Test("missing or invalid Idempotency-Key → 400; own tour and owned tour → 409; unknown, draft, unpublished → 404; no token → 401")
    func badRequests() async throws {
        try await Self.withRoutes(.sqlite) { client, f in
            let tour = UUID.v4(), guide = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: guide, price: 500)
            let token = try await TokenForge.token(traveller)
            let missing = try await Self.purchase(client, tour, key: nil, token: token)
            #expect(missing.status == 400 && missing.json["code"] as? String == "missing-idempotency-key")
            for bad in ["", String(repeating: "k", count: 256), "spaces are not allowed", "ключ"] {
                let reply = try await Self.purchase(client, tour, key: bad, token: token)
                #expect(reply.status == 400 && reply.json["code"] as? String == "invalid-idempotency-key", "\(bad)")
            }
            let own = try await Self.purchase(client, tour, key: "k", token: try await TokenForge.token(guide, .guide))
            #expect(own.status == 409 && own.json["code"] as? String == "own-tour")

            let bought = try await Self.purchase(client, tour, key: "k", token: token)
            let purchaseId = try #require(bought.json["purchaseId"] as? String)
            let pending = try await Self.purchase(client, tour, key: "k-other", token: token)
            #expect(pending.status == 409 && pending.json["code"] as? String == "purchase-pending")
            _ = try await Self.send(client, .post, "/v1/payments/sandbox/\(purchaseId)/confirm", token: token)
            let owned = try await Self.purchase(client, tour, key: "k-again", token: token)
            #expect(owned.status == 409 && owned.json["code"] as? String == "already-owned")

            let withdrawn = UUID.v4()
            try await f.publish(withdrawn, guide: guide, price: 500)
            try await f.unpublish(withdrawn)
            for id in [UUID.v4().uuidString.lowercased(), withdrawn.uuidString.lowercased(), "not-a-uuid"] {
                let reply = try await Self.send(client, .post, "/v1/tours/\(id)/purchase", token: token,
                                                headers: [CommerceRoutes.idempotencyKeyHeader: "k"])
                #expect(reply.status == 404 && reply.json["code"] as? String == "unknown-tour", "\(id)")
            }
            #expect(try await Self.purchase(client, tour, key: "k", token: "not-a-token").status == 401)
            #expect(try await Self.send(client, .post, "/v1/payments/sandbox/\(UUID.v4().uuidString.lowercased())/confirm", token: token).status == 404)
        }
    }

    @Test("concurrent HTTP purchases with one Idempotency-Key: one purchase, every answer names it")
    func concurrentHTTP() async throws {
        try await Self.withRoutes(.sqlite) { client, f in
            let tour = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 900)
            let token = try await TokenForge.token(traveller)
            let replies = await CommerceTestSupport.concurrently(8) { _ in
                let reply = try await Self.purchase(client, tour, key: "one-key", token: token)
                return "\(reply.status) \(reply.json["purchaseId"] as? String ?? "-")"
            }
            let answers = Set(try replies.map { try $0.get() })
            #expect(answers.count == 1 && answers.first?.hasPrefix("202 ") == true, "\(answers)")
            #expect(try await f.accessEvents(tour, traveller) == ["PurchaseStarted"])
        }
    }

    @Test("webhook over HTTP: forged or stale → 400 and no entitlement; valid → 200; replayed → 200 duplicate, no second grant",
          arguments: TestBackend.enabled)
    func webhookHTTP(backend: TestBackend) async throws {
        try await Self.withRoutes(backend) { client, f in
            let p = try await PaymentWebhookTests.pending(f)
            func deliver(_ signature: String?) async throws -> JSONReply {
                var headers = HTTPFields()
                if let signature { headers[CommerceRoutes.signatureHeader] = signature }
                return try await Self.send(client, .post, "/v1/payments/webhook", bytes: p.body, headers: headers)
            }
            let now = f.clock.now()
            let forged = try await deliver(StripeSignature.header(payload: p.body, secret: "whsec_forger", at: now))
            #expect(forged.status == 400 && forged.json["code"] as? String == "invalid-signature")
            let stale = try await deliver(StripeSignature.header(payload: p.body, secret: PaymentWebhookTests.secret, at: now.addingTimeInterval(-600)))
            #expect(stale.status == 400 && stale.json["code"] as? String == "stale-signature")
            #expect(try await deliver(nil).status == 400)
            #expect(try await !f.isEntitled(p.user, p.tour))

            let header = StripeSignature.header(payload: p.body, secret: PaymentWebhookTests.secret, at: now)
            let accepted = try await deliver(header)
            #expect(accepted.status == 200 && accepted.json["outcome"] as? String == "completed" && accepted.json["received"] as? Bool == true)
            let replayed = try await deliver(header)
            #expect(replayed.status == 200 && replayed.json["outcome"] as? String == "duplicate")
            #expect(try await f.isEntitled(p.user, p.tour))
            #expect(try await f.accessEvents(p.tour, p.user) == ["PurchaseStarted", "PurchaseCompleted"])
        }
    }

    @Test("refund over HTTP: within 14 days 200 refunded and the tour is gone; after 14 days 409 and kept; nothing bought → 409")
    func refundHTTP() async throws {
        try await Self.withRoutes(.sqlite) { client, f in
            let tour = UUID.v4(), early = UUID.v4(), late = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 2_000)
            for user in [early, late] {
                let token = try await TokenForge.token(user)
                let bought = try await Self.purchase(client, tour, key: "k", token: token)
                _ = try await Self.send(client, .post, try #require(bought.json["checkoutUrl"] as? String), token: token)
            }
            let path = "/v1/tours/\(tour.uuidString.lowercased())/refund"
            let nothing = try await Self.send(client, .post, path, token: try await TokenForge.token(UUID.v4()))
            #expect(nothing.status == 409 && nothing.json["code"] as? String == "not-refundable")

            f.clock.advance(86_400)
            let refunded = try await Self.send(client, .post, path, token: try await TokenForge.token(early))
            #expect(refunded.status == 200 && refunded.json["status"] as? String == "refunded")
            f.clock.advance(14 * 86_400)
            let tooLate = try await Self.send(client, .post, path, token: try await TokenForge.token(late))
            #expect(tooLate.status == 409 && tooLate.json["code"] as? String == "refund-window-closed")
            try await f.entitlementsProjection.catchUp()
            let kept = try await Self.send(client, .get, "/v1/me/tours", token: try await TokenForge.token(late))
            #expect((kept.json["tours"] as? [[String: Any]])?.count == 1)
            let gone = try await Self.send(client, .get, "/v1/me/tours", token: try await TokenForge.token(early))
            #expect((gone.json["tours"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    @Test("exchange rates: admins replace the table (422 for bad codes and rates, 403 for others); anyone reads it")
    func exchangeRatesHTTP() async throws {
        try await Self.withRoutes(.sqlite) { client, _ in
            let admin = try await TokenForge.token(UUID.v4(), .admin)
            let empty = try await Self.send(client, .get, "/v1/exchange-rates")
            #expect(empty.status == 200 && empty.json["base"] as? String == "EUR" && empty.json["updatedAt"] is NSNull)

            let body = #"{"base":"EUR","rates":{"USD":"1.0842","JPY":"162.310","EUR":"1"}}"#
            #expect(try await Self.send(client, .put, "/v1/admin/exchange-rates", json: body, token: try await TokenForge.token(UUID.v4())).status == 403)
            #expect(try await Self.send(client, .put, "/v1/admin/exchange-rates", json: body).status == 401)
            let replaced = try await Self.send(client, .put, "/v1/admin/exchange-rates", json: body, token: admin)
            #expect(replaced.status == 200 && replaced.json["updatedAt"] is String)
            #expect(replaced.json["rates"] as? [String: String] == ["USD": "1.0842", "JPY": "162.31"])
            let read = try await Self.send(client, .get, "/v1/exchange-rates")
            #expect(read.json["rates"] as? [String: String] == ["USD": "1.0842", "JPY": "162.31"] && read.json["updatedAt"] as? String != nil)

            let bad = #"{"base":"USD","rates":{"usd":"1","XXX":"1","USD":"-1","JPY":"1e3","EUR":"2"}}"#
            let refused = try await Self.send(client, .put, "/v1/admin/exchange-rates", json: bad, token: admin)
            #expect(refused.status == 422)
            let fields = Set((refused.json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["base", "rates.usd", "rates.XXX", "rates.USD", "rates.JPY", "rates.EUR"])
            let none = try await Self.send(client, .put, "/v1/admin/exchange-rates", json: #"{"rates":{}}"#, token: admin)
            #expect(none.status == 422)
            #expect(try await Self.send(client, .get, "/v1/exchange-rates").json["rates"] as? [String: String] == ["USD": "1.0842", "JPY": "162.31"])
        }
    }
}
