import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Synchronization
import Testing
import TourManagement

/// A clock tests move by hand.
final class CommerceClock: Sendable {
    private let current: Mutex<Date>
    /// Added after every reading (0: frozen until advanced).
    let tick: TimeInterval

    init(_ start: Date = Date(timeIntervalSince1970: 1_795_341_600), tick: TimeInterval = 0) {
        current = Mutex(start)
        self.tick = tick
    }

    var now: @Sendable () -> Date {
        { self.current.withLock { date in
            defer { date = date.addingTimeInterval(self.tick) }
            return date
        } }
    }

    func advance(_ seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Storage with the discovery and entitlements projections, and the marketplace opened over it.
struct CommerceFixture: Sendable {
    let store: AnyEventStore
    let commerce: Commerce
    let purchases: Purchases
    let discovery: any ProjectionRunning
    let entitlementsProjection: any ProjectionRunning
    let clock: CommerceClock

    var entitlements: Entitlements { commerce.entitlements }

    static let krems: Int64 = 2_773_300

    /// Publishes revision `revision` of `tour` by `guide` at `price` minor units and brings the discovery model up to date.
    func publish(_ tour: UUID, guide: UUID, price: Int64, currency: CurrencyCode = .eur, revision: Int = 1, title: String = "Krems old town")
        async throws {
        let stops = [DiscoveryReadModelTests.stop("Steiner Tor", 48.4098, 15.5976), DiscoveryReadModelTests.stop("Piaristenkirche", 48.4112, 15.6010)]
        let details = TourDetails(title: title, description: "Gates, churches and wine.", destinationId: Self.krems, themes: [.history],
                                  languages: ["en"], price: Money(amountMinor: price, currency: currency), estimatedMinutes: 60,
                                  difficulty: .easy, mode: .walk)
        let event = TourPublished(tourId: tour, guideId: guide, revision: revision, details: details, stops: stops,
                                  lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()), publishedAt: clock.now())
        _ = try await store.append(try event.newEvent(), to: TourAggregate.streamID(tour), expectedVersion: .any)
        try await discovery.catchUp()
    }

    func unpublish(_ tour: UUID) async throws {
        _ = try await store.append(try TourUnpublished(tourId: tour, unpublishedAt: clock.now()).newEvent(), to: TourAggregate.streamID(tour),
                                   expectedVersion: .any)
        try await discovery.catchUp()
    }

    /// The payload types of the access stream of (tour, user), in order.
    func accessEvents(_ tour: UUID, _ user: UUID) async throws -> [String] {
        try await store.readStream(AccessStream.id(tour: tour, user: user)).map(\.eventType)
    }

    func isEntitled(_ user: UUID, _ tour: UUID) async throws -> Bool {
        try await entitlementsProjection.catchUp()
        return try await entitlements.isEntitled(user: user, tour: tour)
    }

    /// Pays the sandbox checkout of `purchaseId` (the signed webhook goes through the webhook path).
    func confirm(_ purchaseId: UUID?, by user: UUID) async throws -> PurchaseView {
        guard let purchaseId else { throw TestSetupError("no purchase id") }
        return try await purchases.sandbox(purchaseId, user: user, confirm: true)
    }
}

enum CommerceTestSupport {
    static var quiet: Logger { MediaTestSupport.quiet }

    /// Fresh storage on `backend` with the marketplace; projections are caught up by the fixture's helpers.
    static func withCommerce(_ backend: TestBackend, configuration: CommerceConfiguration = CommerceConfiguration(),
                             provider: (@Sendable (Commerce, CommerceClock) -> any PaymentProvider)? = nil,
                             _ body: @Sendable (CommerceFixture) async throws -> Void) async throws {
        try await backend.withServiceStorage("tour-management", logger: quiet) { storage in
            let clock = CommerceClock()
            let commerce = try await Commerce.open(configuration, stores: try await TourManagementStores.open(storage), logger: quiet)
            let purchases = commerce.purchases(now: clock.now, provider: provider?(commerce, clock))
            try await body(CommerceFixture(
                store: AnyEventStore(storage.store), commerce: commerce, purchases: purchases,
                discovery: storage.projection(sqlite: SQLiteDiscoveryProjection(), postgres: PostgresDiscoveryProjection(), logger: quiet),
                entitlementsProjection: storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection(),
                                                           logger: quiet),
                clock: clock))
        }
    }

    /// Runs `body` concurrently `count` times and returns every result or error.
    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async -> [Result<T, any Error>] {
        await withTaskGroup(of: Result<T, any Error>.self) { group in
            for index in 0..<count {
                group.addTask {
                    do { return .success(try await body(index)) } catch { return .failure(error) }
                }
            }
            var results: [Result<T, any Error>] = []
            for await result in group { results.append(result) }
            return results
        }
    }
}

@Suite("tour-management: purchases, acquisitions and refunds on the access stream, both backends")
struct PurchaseTests {
    @Test("the fee is price × bps / 10000 rounded half up; earnings are the rest; configuration reads the environment")
    func feeSplit() throws {
        func split(_ amount: Int64, _ bps: Int, _ currency: CurrencyCode = .eur) -> (Int64, Int64) {
            let (fee, earnings) = CommerceConfiguration.split(Money(amountMinor: amount, currency: currency), basisPoints: bps)
            return (fee.amountMinor, earnings.amountMinor)
        }
        #expect(split(1_299, 2_000) == (260, 1_039), "259.8 → 260")
        #expect(split(1_000, 2_000) == (200, 800))
        #expect(split(1_250, 1_500) == (188, 1_062), "187.5 → 188 (half up)")
        #expect(split(1_249, 1_500) == (187, 1_062), "187.35 → 187")
        #expect(split(1, 5_000) == (1, 0), "0.5 → 1")
        #expect(split(1_500, 2_000, .jpy) == (300, 1_200))
        #expect(split(100_000_000, 10_000) == (100_000_000, 0))
        #expect(split(999, 0) == (0, 999))

        let defaults = try CommerceConfiguration.fromEnvironment([:])
        #expect(defaults.platformFeeBasisPoints == 2_000 && defaults.provider == .sandbox && defaults.webhookSecret == nil)
        let stripe = try CommerceConfiguration.fromEnvironment([
            "WAYPOINT_PLATFORM_FEE_BPS": "1500", "WAYPOINT_PAYMENTS_PROVIDER": "stripe", "WAYPOINT_STRIPE_SECRET_KEY": "sk_test_1",
            "WAYPOINT_PAYMENTS_WEBHOOK_SECRET": "whsec_1", "WAYPOINT_STRIPE_API_URL": "http://127.0.0.1:12111/",
        ])
        #expect(stripe.platformFeeBasisPoints == 1_500 && stripe.provider == .stripe && stripe.stripeAPIURL.absoluteString == "http://127.0.0.1:12111")
        #expect(throws: ConfigurationError.self) { try CommerceConfiguration.fromEnvironment(["WAYPOINT_PLATFORM_FEE_BPS": "10001"]) }
        #expect(throws: ConfigurationError.self) {
            try CommerceConfiguration.fromEnvironment(["WAYPOINT_PAYMENTS_PROVIDER": "stripe", "WAYPOINT_STRIPE_SECRET_KEY": "sk"])
        }
    }

    @Test("a purchase id is derived from (user, tour, key): same inputs same id, any other input another id")
    func requestIDs() {
        let tour = UUID.v4(), user = UUID.v4()
        let id = AccessStream.requestID(tour: tour, user: user, idempotencyKey: "k1")
        #expect(id == AccessStream.requestID(tour: tour, user: user, idempotencyKey: "k1"))
        #expect(id != AccessStream.requestID(tour: tour, user: user, idempotencyKey: "k2"))
        #expect(id != AccessStream.requestID(tour: UUID.v4(), user: user, idempotencyKey: "k1"))
        #expect(id != AccessStream.requestID(tour: tour, user: UUID.v4(), idempotencyKey: "k1"))
        #expect(id.uuidString.lowercased().dropFirst(14).first == "8", "version 8")
        #expect(AccessStream.id(tour: tour, user: user) == "access-\(tour.uuidString.lowercased())-\(user.uuidString.lowercased())")
    }

    @Test("buy → pending with fixed price, fee and earnings → sandbox confirm → completed and entitled; the same key answers again",
          arguments: TestBackend.enabled)
    func purchaseToEntitlement(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), guide = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: guide, price: 1_299, revision: 3)
            let started = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "key-1")
            #expect(started.created && started.purchase.status == .pending)
            #expect(started.purchase.price == Money(amountMinor: 1_299, currency: .eur) && started.purchase.revision == 3)
            #expect(started.purchase.checkoutUrl == SandboxPaymentProvider.confirmPath(try #require(started.purchase.purchaseId)))
            #expect(try await !f.isEntitled(traveller, tour))

            let (state, _) = try await f.purchases.load(tour: tour, user: traveller)
            let fixed = try #require(state.purchases.first?.started)
            #expect(fixed.platformFee.amountMinor == 260 && fixed.guideEarnings.amountMinor == 1_039 && fixed.feeBasisPoints == 2_000)
            #expect(fixed.guideId == guide && fixed.provider == "sandbox" && fixed.providerReference.hasPrefix("sbx_cs_"))

            // The guide raises the price: the pending purchase keeps what was fixed.
            try await f.publish(tour, guide: guide, price: 5_000, revision: 4)
            let completed = try await f.confirm(started.purchase.purchaseId, by: traveller)
            #expect(completed.status == .completed && completed.price.amountMinor == 1_299)
            #expect(completed.refundableUntil == completed.completedAt?.addingTimeInterval(14 * 86_400))
            #expect(try await f.isEntitled(traveller, tour))
            let entitlement = try #require(try await f.entitlements.entitlement(tour: tour, user: traveller))
            #expect(entitlement.source == .purchase && entitlement.revision == 3 && entitlement.price.amountMinor == 1_299)

            let again = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "key-1")
            #expect(!again.created && again.purchase.purchaseId == started.purchase.purchaseId && again.purchase.status == .completed)
            #expect(try await f.accessEvents(tour, traveller) == ["PurchaseStarted", "PurchaseCompleted"])
        }
    }

    @Test("concurrent requests with one Idempotency-Key make exactly one purchase and all get it", arguments: TestBackend.enabled)
    func concurrentSameKey(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 900)
            let results = await CommerceTestSupport.concurrently(8) { _ in
                try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "same")
            }
            let outcomes = try results.map { try $0.get() }
            #expect(Set(outcomes.map(\.purchase.purchaseId)).count == 1)
            #expect(outcomes.filter(\.created).count == 1, "exactly one request created it")
            #expect(try await f.accessEvents(tour, traveller) == ["PurchaseStarted"])
        }
    }

    @Test("concurrent requests with different keys: one purchase, the others 409 purchase-pending", arguments: TestBackend.enabled)
    func concurrentDifferentKeys(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 900)
            let results = await CommerceTestSupport.concurrently(6) { index in
                try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "key-\(index)")
            }
            let successes = results.compactMap { try? $0.get() }
            #expect(successes.count == 1)
            for case .failure(let error) in results {
                guard case CommerceError.purchasePending(let id) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(id == successes.first?.purchase.purchaseId)
            }
            #expect(try await f.accessEvents(tour, traveller) == ["PurchaseStarted"])
        }
    }

    @Test("own tour, owned tour, unknown, draft and unpublished tours are refused", arguments: TestBackend.enabled)
    func refusals(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), guide = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: guide, price: 1_500)
            await #expect(throws: CommerceError.ownTour) { try await f.purchases.purchase(tour: tour, user: guide, idempotencyKey: "k") }
            let bought = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "k")
            _ = try await f.confirm(bought.purchase.purchaseId, by: traveller)
            await #expect(throws: CommerceError.alreadyOwned) { try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "k2") }
            await #expect(throws: CommerceError.unknownTour) { try await f.purchases.purchase(tour: UUID.v4(), user: traveller, idempotencyKey: "k") }

            let draft = UUID.v4()
            let details = TourDetails(title: "Draft", description: "", destinationId: CommerceFixture.krems, themes: [.history], languages: ["en"],
                                      price: Money(amountMinor: 500, currency: .eur), estimatedMinutes: 30, difficulty: .easy, mode: .walk)
            _ = try await f.store.append(try TourDrafted(tourId: draft, guideId: guide, details: details, draftedAt: f.clock.now()).newEvent(),
                                         to: TourAggregate.streamID(draft), expectedVersion: .noStream)
            try await f.discovery.catchUp()
            await #expect(throws: CommerceError.unknownTour) { try await f.purchases.purchase(tour: draft, user: traveller, idempotencyKey: "k") }

            let withdrawn = UUID.v4()
            try await f.publish(withdrawn, guide: guide, price: 500)
            try await f.unpublish(withdrawn)
            await #expect(throws: CommerceError.unknownTour) { try await f.purchases.purchase(tour: withdrawn, user: traveller, idempotencyKey: "k") }
            #expect(try await f.accessEvents(withdrawn, traveller).isEmpty)
        }
    }

    @Test("free tours are acquired at once; the same key answers again, another key is 409 already-owned", arguments: TestBackend.enabled)
    func freeTours(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 0, revision: 2)
            let acquired = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "free-1")
            #expect(acquired.created && acquired.purchase.status == .acquired && acquired.purchase.purchaseId == nil)
            #expect(try await f.isEntitled(traveller, tour))
            let again = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "free-1")
            #expect(!again.created && again.purchase.status == .acquired && again.purchase.acquiredAt == acquired.purchase.acquiredAt)
            await #expect(throws: CommerceError.alreadyOwned) { try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "free-2") }
            await #expect(throws: CommerceError.notRefundable) { try await f.purchases.refund(tour: tour, user: traveller) }

            // Concurrent acquisitions with one key: one event. (With the test's frozen clock the racing appends are
            // byte-identical, which the store treats as a retry of the same append, so more than one may say "created".)
            let other = UUID.v4()
            let results = await CommerceTestSupport.concurrently(6) { _ in
                try await f.purchases.purchase(tour: tour, user: other, idempotencyKey: "same")
            }
            #expect(try results.map { try $0.get() }.allSatisfy { $0.purchase.status == .acquired })
            #expect(try await f.accessEvents(tour, other) == ["TourAcquired"])
            // With time moving between them, a loser's append reuses the event id with other content: it reloads and
            // replays, so exactly one request created the acquisition.
            let ticking = CommerceClock(tick: 0.001)
            let moving = f.commerce.purchases(now: ticking.now)
            let third = UUID.v4()
            let racing = await CommerceTestSupport.concurrently(6) { _ in
                try await moving.purchase(tour: tour, user: third, idempotencyKey: "same")
            }
            #expect(try racing.map { try $0.get() }.filter(\.created).count == 1)
            #expect(try await f.accessEvents(tour, third) == ["TourAcquired"])
            let (state, _) = try await f.purchases.load(tour: tour, user: third)
            #expect(state.acquisition?.eventID == AccessStream.requestID(tour: tour, user: third, idempotencyKey: "same"))
        }
    }

    @Test("a refund within 14 days revokes the entitlement; after 14 days it is 409 and the tour stays owned", arguments: TestBackend.enabled)
    func refunds(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), early = UUID.v4(), late = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 2_500)
            for user in [early, late] {
                let bought = try await f.purchases.purchase(tour: tour, user: user, idempotencyKey: "k")
                _ = try await f.confirm(bought.purchase.purchaseId, by: user)
            }
            f.clock.advance(13 * 86_400)
            let refunded = try await f.purchases.refund(tour: tour, user: early)
            #expect(refunded.status == .refunded)
            #expect(try await !f.isEntitled(early, tour))
            #expect(try await f.purchases.refund(tour: tour, user: early).status == .refunded, "asking again answers again")
            #expect(try await f.accessEvents(tour, early) == ["PurchaseStarted", "PurchaseCompleted", "PurchaseRefunded"])

            f.clock.advance(1 * 86_400 + 1)
            do {
                _ = try await f.purchases.refund(tour: tour, user: late)
                Issue.record("a refund after 14 days must be refused")
            } catch let error as CommerceError {
                #expect(error.problem.status == .conflict && error.problem.code == "refund-window-closed")
            }
            #expect(try await f.isEntitled(late, tour))
            #expect(try await f.accessEvents(tour, late) == ["PurchaseStarted", "PurchaseCompleted"])

            // After a refund the traveller may buy again, with a new key.
            let rebought = try await f.purchases.purchase(tour: tour, user: early, idempotencyKey: "k2")
            #expect(rebought.created && rebought.purchase.status == .pending)
        }
    }

    @Test("a declined payment fails the purchase (same key answers failed); a stale pending purchase is closed by the next one",
          arguments: TestBackend.enabled)
    func declinesAndExpiry(backend: TestBackend) async throws {
        try await CommerceTestSupport.withCommerce(backend) { f in
            let tour = UUID.v4(), traveller = UUID.v4()
            try await f.publish(tour, guide: UUID.v4(), price: 700)
            let first = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "a")
            let declined = try await f.purchases.sandbox(try #require(first.purchase.purchaseId), user: traveller, confirm: false)
            #expect(declined.status == .failed && declined.failureReason == "card_declined")
            #expect(try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "a").purchase.status == .failed)

            let second = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "b")
            #expect(second.created)
            let pendingId = try #require(second.purchase.purchaseId)
            await #expect(throws: CommerceError.purchasePending(pendingId)) {
                try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "c")
            }
            // The checkout expires after an hour: the sandbox refuses to pay it and reports it expired.
            f.clock.advance(3_601)
            await #expect(throws: CommerceError.checkoutExpired) { try await f.confirm(second.purchase.purchaseId, by: traveller) }
            #expect(try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "b").purchase.status == .failed)

            // A pending purchase nobody closed blocks for lifetime + grace, then the next purchase closes it.
            let third = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "c")
            f.clock.advance(3_600 + 301)
            let fourth = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "d")
            #expect(fourth.created)
            let (state, _) = try await f.purchases.load(tour: tour, user: traveller)
            #expect(state.purchase(try #require(third.purchase.purchaseId))?.failureReason == "expired")
            _ = try await f.confirm(fourth.purchase.purchaseId, by: traveller)
            #expect(try await f.isEntitled(traveller, tour))
            // Someone else's checkout is not found.
            await #expect(throws: CommerceError.unknownPurchase) { try await f.confirm(fourth.purchase.purchaseId, by: UUID.v4()) }
        }
    }

    @Test("the sandbox webhook secret is generated once and kept: reopening the storage finds the same one")
    func generatedSecret() async throws {
        let directory = TemporaryDirectory("waypoint-commerce-secret")
        defer { directory.remove() }
        let runtime = try TestBackend.sqlite.runtime("tour-management", in: directory)
        let first = try await ServiceStorage.withOpen(runtime, logger: CommerceTestSupport.quiet) { storage in
            try await Commerce.open(CommerceConfiguration(), stores: try await TourManagementStores.open(storage)).webhookSecret
        }
        let second = try await ServiceStorage.withOpen(runtime, logger: CommerceTestSupport.quiet) { storage in
            try await Commerce.open(CommerceConfiguration(), stores: try await TourManagementStores.open(storage)).webhookSecret
        }
        #expect(first == second && first.hasPrefix("whsec_sbx_") && first.count > 40)
        let configured = try await ServiceStorage.withOpen(runtime, logger: CommerceTestSupport.quiet) { storage in
            try await Commerce.open(CommerceConfiguration(webhookSecret: "whsec_configured"), stores: try await TourManagementStores.open(storage)).webhookSecret
        }
        #expect(configured == "whsec_configured")
    }
}

/// Stripe's API on loopback: records what the adapter sends and answers in Stripe's shape.
final class FakeStripe: Sendable {
    struct Call: Sendable {
        var method: String
        var path: String
        var authorization: String?
        var idempotencyKey: String?
        var form: [String: String]
    }

    private let calls = Mutex<[Call]>([])
    var recorded: [Call] { calls.withLock { $0 } }

    static func form(_ text: String) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = text
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/v1/checkout/sessions") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let form = Self.form(String(buffer: body))
            self.calls.withLock {
                $0.append(Call(method: "POST", path: "/v1/checkout/sessions", authorization: request.headers[.authorization],
                               idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!], form: form))
            }
            let id = "cs_test_\(form["client_reference_id"]?.prefix(8) ?? "x")"
            return Self.json(#"{"id":"\#(id)","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/\#(id)"}"#)
        }
        router.get("/v1/checkout/sessions/:id") { _, context -> Response in
            let id = try context.parameters.require("id")
            return Self.json(#"{"id":"\#(id)","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/\#(id)"}"#)
        }
        router.post("/v1/refunds") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let form = Self.form(String(buffer: body))
            self.calls.withLock {
                $0.append(Call(method: "POST", path: "/v1/refunds", authorization: request.headers[.authorization],
                               idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!], form: form))
            }
            if form["payment_intent"] == "pi_refuse" {
                return Self.json(#"{"error":{"type":"invalid_request_error","code":"charge_already_refunded"}}"#, status: .badRequest)
            }
            return Self.json(#"{"id":"re_test_1","object":"refund","status":"succeeded"}"#)
        }
        return router
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

@Suite("tour-management: the Stripe adapter against a loopback Stripe")
struct StripeAdapterTests {
    @Test("checkout session with price, metadata and Idempotency-Key; Stripe's signed webhooks complete and refund the purchase")
    func stripeFlow() async throws {
        let stripe = FakeStripe()
        try await LoopbackServer.run(router: stripe.router()) { port in
            let configuration = CommerceConfiguration(provider: .stripe, webhookSecret: "whsec_test_stripe", stripeSecretKey: "sk_test_123",
                                                      stripeAPIURL: URL(string: "http://127.0.0.1:\(port)")!)
            try await CommerceTestSupport.withCommerce(.sqlite, configuration: configuration) { f in
                let tour = UUID.v4(), traveller = UUID.v4()
                try await f.publish(tour, guide: UUID.v4(), price: 1_299, title: "Krems & Stein")
                let started = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "s1")
                let purchaseId = try #require(started.purchase.purchaseId)
                #expect(started.purchase.status == .pending && started.purchase.provider == "stripe")
                #expect(started.purchase.checkoutUrl?.hasPrefix("https://checkout.stripe.com/c/pay/cs_test_") == true)

                let call = try #require(stripe.recorded.first)
                #expect(call.authorization == "Bearer sk_test_123")
                #expect(call.idempotencyKey == "purchase-\(purchaseId.uuidString.lowercased())")
                #expect(call.form["mode"] == "payment" && call.form["line_items[0][price_data][unit_amount]"] == "1299")
                #expect(call.form["line_items[0][price_data][currency]"] == "eur")
                #expect(call.form["line_items[0][price_data][product_data][name]"] == "Krems & Stein")
                #expect(call.form["metadata[purchaseId]"] == purchaseId.uuidString.lowercased())
                #expect(call.form["payment_intent_data[metadata][userId]"] == traveller.uuidString.lowercased())
                #expect(call.form["expires_at"] == String(Int64(f.clock.now().timeIntervalSince1970) + 3_600))
                let replay = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "s1")
                #expect(replay.purchase.checkoutUrl == started.purchase.checkoutUrl, "the URL is fetched again from Stripe")

                // Stripe calls the webhook (simulated: a body in Stripe's format signed with the endpoint secret).
                let metadata = StripeEventBody.metadata(purchaseId: purchaseId, tourId: tour, userId: traveller)
                let completed = StripeEventBody.make(type: "checkout.session.completed", created: f.clock.now(), object: [
                    "id": "cs_test_1", "object": "checkout.session", "payment_status": "paid", "payment_intent": "pi_test_1",
                    "amount_total": 1_299, "currency": "eur", "metadata": metadata,
                ])
                let receipt = try await f.purchases.receiveWebhook(
                    body: completed, signature: StripeSignature.header(payload: completed, secret: "whsec_test_stripe", at: f.clock.now()))
                #expect(receipt.outcome == .completed)
                #expect(try await f.isEntitled(traveller, tour))

                let refund = try await f.purchases.refund(tour: tour, user: traveller)
                #expect(refund.status == .refundPending, "Stripe confirms later, by charge.refunded")
                let refundCall = try #require(stripe.recorded.last)
                #expect(refundCall.path == "/v1/refunds" && refundCall.form["payment_intent"] == "pi_test_1")
                #expect(refundCall.idempotencyKey == "refund-\(purchaseId.uuidString.lowercased())")
                #expect(try await f.isEntitled(traveller, tour))
                let refunded = StripeEventBody.make(type: "charge.refunded", created: f.clock.now(), object: [
                    "id": "ch_test_1", "object": "charge", "payment_intent": "pi_test_1", "refunded": true, "metadata": metadata,
                ])
                let header = StripeSignature.header(payload: refunded, secret: "whsec_test_stripe", at: f.clock.now())
                #expect(try await f.purchases.receiveWebhook(body: refunded, signature: header).outcome == .refunded)
                #expect(try await !f.isEntitled(traveller, tour))
            }
        }
    }

    @Test("a refusing or unreachable Stripe is 502 payment-provider-unavailable and records nothing")
    func stripeDown() async throws {
        let refusing = Router()
        refusing.post("/v1/checkout/sessions") { _, _ -> Response in
            FakeStripe.json(#"{"error":{"type":"invalid_request_error","code":"amount_too_small"}}"#, status: .badRequest)
        }
        try await LoopbackServer.run(router: refusing) { port in
            for url in ["http://127.0.0.1:\(port)", "http://127.0.0.1:9"] {
                let configuration = CommerceConfiguration(provider: .stripe, webhookSecret: "whsec_x", stripeSecretKey: "sk_test_123")
                try await CommerceTestSupport.withCommerce(.sqlite, configuration: configuration, provider: { _, _ in
                    StripePaymentProvider(apiURL: URL(string: url)!, secretKey: "sk_test_123", timeout: .milliseconds(500))
                }) { f in
                    let tour = UUID.v4(), traveller = UUID.v4()
                    try await f.publish(tour, guide: UUID.v4(), price: 1_299)
                    do {
                        _ = try await f.purchases.purchase(tour: tour, user: traveller, idempotencyKey: "s1")
                        Issue.record("expected a provider error")
                    } catch let error as CommerceError {
                        #expect(error.problem.status == .badGateway && error.problem.code == "payment-provider-unavailable", "\(url)")
                    }
                    #expect(try await f.accessEvents(tour, traveller).isEmpty)
                }
            }
        }
    }
}
