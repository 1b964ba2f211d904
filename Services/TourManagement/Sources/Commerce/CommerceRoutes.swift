import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

/// The newest offline bundle of an owned tour (filled in by the bundle read model; `null` until it exists).
public struct OwnedTourBundle: Codable, Sendable, Hashable {
    public var version: Int
    public var sizeBytes: Int64

    public init(version: Int, sizeBytes: Int64) {
        self.version = version
        self.sizeBytes = sizeBytes
    }
}

struct MoneyResponse: Codable, Sendable {
    var amountMinor: Int64
    var currency: String

    init(_ money: Money) {
        amountMinor = money.amountMinor
        currency = money.currency.code
    }
}

/// A purchase or acquisition (`POST /v1/tours/{id}/purchase|refund`, the sandbox routes).
struct PurchaseResponse: ResponseEncodable {
    var purchaseId: String?
    var tourId: String
    var status: PurchaseView.Status
    var revision: Int
    var price: MoneyResponse
    var provider: String?
    var checkoutUrl: String?
    var startedAt: Date?
    var expiresAt: Date?
    var completedAt: Date?
    var failedAt: Date?
    var failureReason: String?
    var refundedAt: Date?
    var refundableUntil: Date?
    var acquiredAt: Date?

    init(_ view: PurchaseView) {
        purchaseId = view.purchaseId?.uuidString.lowercased()
        tourId = view.tourId.uuidString.lowercased()
        status = view.status
        revision = view.revision
        price = MoneyResponse(view.price)
        provider = view.provider
        checkoutUrl = view.checkoutUrl
        startedAt = view.startedAt
        expiresAt = view.expiresAt
        completedAt = view.completedAt
        failedAt = view.failedAt
        failureReason = view.failureReason
        refundedAt = view.refundedAt
        refundableUntil = view.refundableUntil
        acquiredAt = view.acquiredAt
    }
}

/// `GET /v1/me/tours`.
struct OwnedToursResponse: ResponseEncodable {
    struct Tour: Encodable, Sendable {
        var tourId: String
        /// The listed revision's title; `null` when the tour is not listed any more (owners keep it).
        var title: String?
        var source: EntitlementSource
        var purchaseId: String?
        /// The revision bought or acquired.
        var revision: Int
        /// The revision listed now; `null` when unlisted.
        var latestRevision: Int?
        var price: MoneyResponse
        var grantedAt: Date
        /// The newest offline bundle; `null` until bundles exist.
        var bundle: OwnedTourBundle?

        enum CodingKeys: String, CodingKey {
            case tourId, title, source, purchaseId, revision, latestRevision, price, grantedAt, bundle
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tourId, forKey: .tourId)
            try container.encode(title, forKey: .title)
            try container.encode(source, forKey: .source)
            try container.encode(purchaseId, forKey: .purchaseId)
            try container.encode(revision, forKey: .revision)
            try container.encode(latestRevision, forKey: .latestRevision)
            try container.encode(price, forKey: .price)
            try container.encode(grantedAt, forKey: .grantedAt)
            try container.encode(bundle, forKey: .bundle)
        }
    }

    var tours: [Tour]
}

/// `GET /v1/exchange-rates`, `PUT /v1/admin/exchange-rates`.
struct ExchangeRatesResponse: ResponseEncodable {
    var base: String
    var rates: [String: String]
    var updatedAt: Date?

    init(_ table: ExchangeRateTable) {
        base = ExchangeRateTable.base.code
        rates = table.rates.mapValues(\.description)
        updatedAt = table.updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case base, rates, updatedAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(base, forKey: .base)
        try container.encode(rates, forKey: .rates)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// `PUT /v1/admin/exchange-rates`: the whole table, units of each currency per euro as decimal strings.
struct ExchangeRatesRequest: Decodable, ValidatableRequest {
    var base: String?
    var rates: [String: String]

    static let maxRates = 300

    func validate(into validator: inout Validator) {
        if let base {
            validator.require(base == ExchangeRateTable.base.code, field: "base", code: "unsupported-base", message: "must be EUR")
        }
        validator.count(rates, field: "rates", min: 1, max: Self.maxRates)
        for (code, text) in rates.sorted(by: { $0.key < $1.key }) {
            let field = "rates.\(code)"
            guard CurrencyCode(code) != nil else {
                validator.require(false, field: field, code: "unsupported-currency", message: "is not an active ISO 4217 code with a minor unit")
                continue
            }
            guard let rate = DecimalRate(text) else {
                validator.require(false, field: field, code: "invalid-rate",
                                  message: "must be a positive decimal such as 1.0842 (at most 7 integer and 10 fraction digits)")
                continue
            }
            if code == ExchangeRateTable.base.code {
                validator.require(rate == DecimalRate("1"), field: field, code: "invalid-rate", message: "the base currency's rate is 1")
            }
        }
    }

    var parsed: [String: DecimalRate] {
        var result: [String: DecimalRate] = [:]
        for (code, text) in rates where code != ExchangeRateTable.base.code { result[code] = DecimalRate(text) }
        return result
    }
}

/// The marketplace routes: buying and refunding tours, the traveller's tours, the payment webhook (and the sandbox's
/// pay/decline routes when the sandbox is the provider), and exchange rates.
public struct CommerceRoutes: Sendable {
    public let purchases: Purchases
    public let entitlements: Entitlements
    public let exchangeRates: ExchangeRates
    public let bundles: @Sendable ([UUID]) async throws -> [UUID: OwnedTourBundle]

    public init(purchases: Purchases, entitlements: Entitlements, exchangeRates: ExchangeRates,
                bundles: @escaping @Sendable ([UUID]) async throws -> [UUID: OwnedTourBundle] = { _ in [:] }) {
        self.purchases = purchases
        self.entitlements = entitlements
        self.exchangeRates = exchangeRates
        self.bundles = bundles
    }

    public static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    public static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    public static let signatureHeader = HTTPField.Name(StripeSignature.headerName)!

    /// The Idempotency-Key: required (400 `missing-idempotency-key`), 1–255 visible ASCII characters (400
    /// `invalid-idempotency-key`), as in the IETF draft "The Idempotency-Key HTTP Header Field".
    static func idempotencyKey(_ request: Request) throws -> String {
        guard let key = request.headers[idempotencyKeyHeader] else {
            throw Problem.badRequest("Send an Idempotency-Key header (for example a UUID) so a retried purchase is never a second one.",
                                     code: "missing-idempotency-key")
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem.badRequest("The Idempotency-Key must be 1 to 255 visible ASCII characters.", code: "invalid-idempotency-key")
        }
        return key
    }

    static func caller(_ context: ServiceRequestContext) throws -> (UUID, AuthenticatedIdentity) {
        let identity = try context.requireIdentity()
        guard let user = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
        return (user, identity)
    }

    static func uuid(_ context: ServiceRequestContext, _ name: String, _ notFound: CommerceError) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require(name)) else { throw notFound.problem }
        return id
    }

    static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CommerceError {
            throw error.problem
        }
    }

    public func add(to routes: ServiceRoutes) {
        let purchases = purchases, entitlements = entitlements, exchangeRates = exchangeRates, bundles = bundles
        let tours = routes.authenticated("/v1/tours")

        tours.post(":id/purchase") { request, context -> EditedResponse<PurchaseResponse> in
            let (user, identity) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", .unknownTour)
            let key = try Self.idempotencyKey(request)
            let outcome = try await Self.mapping {
                try await purchases.purchase(tour: tourId, user: user, idempotencyKey: key,
                                             metadata: EventMetadata(actorID: identity.subject, traceparent: context.traceparent))
            }
            var headers = HTTPFields()
            if !outcome.created { headers[Self.replayedHeader] = "true" }
            let status: HTTPResponse.Status = switch outcome.purchase.status {
            case .pending: .accepted
            case .acquired where outcome.created: .created
            default: .ok
            }
            return EditedResponse(status: status, headers: headers, response: PurchaseResponse(outcome.purchase))
        }

        tours.post(":id/refund") { _, context -> EditedResponse<PurchaseResponse> in
            let (user, _) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", .unknownTour)
            let view = try await Self.mapping { try await purchases.refund(tour: tourId, user: user) }
            return EditedResponse(status: view.status == .refundPending ? .accepted : .ok, response: PurchaseResponse(view))
        }

        routes.authenticated("/v1/me/tours").get { _, context -> OwnedToursResponse in
            let (user, _) = try Self.caller(context)
            let owned = try await entitlements.owned(by: user)
            let ids = owned.map(\.tourId)
            let latest = try await bundles(ids)
            var tours: [OwnedToursResponse.Tour] = []
            for entitlement in owned {
                let listed = try await purchases.catalog.tour(entitlement.tourId)
                tours.append(OwnedToursResponse.Tour(
                    tourId: entitlement.tourId.uuidString.lowercased(), title: listed?.details.title, source: entitlement.source,
                    purchaseId: entitlement.purchaseId?.uuidString.lowercased(), revision: entitlement.revision, latestRevision: listed?.revision,
                    price: MoneyResponse(entitlement.price), grantedAt: entitlement.grantedAt, bundle: latest[entitlement.tourId]))
            }
            return OwnedToursResponse(tours: tours)
        }

        routes.group("/v1/payments").post("webhook") { request, context -> Response in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: context.maxUploadSize)
            } catch is NIOTooManyBytesError {
                throw Problem.payloadTooLarge(limitBytes: context.maxUploadSize)
            }
            try ServiceRequestDecoder.rejectDuplicateNames(in: body.readableBytesView)
            let receipt = try await Self.mapping {
                try await purchases.receiveWebhook(body: Array(body.readableBytesView), signature: request.headers[Self.signatureHeader])
            }
            let json = #"{"eventId":\#(Self.jsonString(receipt.eventId)),"outcome":"\#(receipt.outcome.rawValue)","received":true}"#
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
        }

        if purchases.provider is SandboxPaymentProvider {
            let sandbox = routes.authenticated("/v1/payments/sandbox")
            for (action, confirm) in [("confirm", true), ("decline", false)] {
                sandbox.post(RouterPath(":purchaseId/\(action)")) { _, context -> PurchaseResponse in
                    let (user, _) = try Self.caller(context)
                    let purchaseId = try Self.uuid(context, "purchaseId", .unknownPurchase)
                    return PurchaseResponse(try await Self.mapping { try await purchases.sandbox(purchaseId, user: user, confirm: confirm) })
                }
            }
        }

        routes.group("/v1/exchange-rates").get { _, _ -> ExchangeRatesResponse in
            ExchangeRatesResponse(try await exchangeRates.table())
        }
        routes.authenticated("/v1/admin/exchange-rates", requiring: .admin).put { request, context -> ExchangeRatesResponse in
            let body = try await request.decode(as: ExchangeRatesRequest.self, context: context)
            return ExchangeRatesResponse(try await exchangeRates.replace(body.parsed, at: purchases.now()))
        }
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
