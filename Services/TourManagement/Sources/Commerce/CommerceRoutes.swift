import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

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

    /// Mounts the marketplace routes on `routes` (the sandbox's pay and decline routes only with the sandbox provider).
    public func addRoutes(to routes: ServiceRoutes) {
        let tours = routes.authenticated("/v1/tours")
        tours.post(":id/purchase", use: purchase)
        tours.post(":id/refund", use: refund)
        routes.authenticated("/v1/me/tours").get(use: ownedTours)
        routes.group("/v1/payments").post("webhook", use: receiveWebhook)
        if purchases.provider is SandboxPaymentProvider {
            let sandbox = routes.authenticated("/v1/payments/sandbox")
            sandbox.post(":purchaseId/confirm", use: confirmSandboxPayment)
            sandbox.post(":purchaseId/decline", use: declineSandboxPayment)
        }
        routes.group("/v1/exchange-rates").get(use: exchangeRateTable)
        routes.authenticated("/v1/admin/exchange-rates", requiring: .admin).put(use: replaceExchangeRates)
    }

    /// `POST /v1/tours/{id}/purchase`: 201 acquired (free), 202 pending payment, 200 for a replayed `Idempotency-Key`.
    @Sendable func purchase(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PurchaseResponse> {
        let user = try context.requireCallerID()
        let tourId = try Self.uuid(context, "id", .unknownTour)
        let key = try Self.idempotencyKey(request)
        let outcome = try await purchases.purchase(tour: tourId, user: user, idempotencyKey: key,
                                                   metadata: EventMetadata(actorID: try context.requireIdentity().subject,
                                                                           traceparent: context.traceparent))
        var headers = HTTPFields()
        if !outcome.created { headers[Self.replayedHeader] = "true" }
        let status: HTTPResponse.Status = switch outcome.purchase.status {
        case .pending: .accepted
        case .acquired where outcome.created: .created
        default: .ok
        }
        return EditedResponse(status: status, headers: headers, response: PurchaseResponse(outcome.purchase))
    }

    /// `POST /v1/tours/{id}/refund`: 200 refunded, 202 while the provider refunds.
    @Sendable func refund(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PurchaseResponse> {
        let user = try context.requireCallerID()
        let tourId = try Self.uuid(context, "id", .unknownTour)
        let view = try await purchases.refund(tour: tourId, user: user)
        return EditedResponse(status: view.status == .refundPending ? .accepted : .ok, response: PurchaseResponse(view))
    }

    /// `GET /v1/me/tours`: what the caller owns, with the listed revision and the newest offline bundle.
    @Sendable func ownedTours(_ request: Request, context: ServiceRequestContext) async throws -> OwnedToursResponse {
        let user = try context.requireCallerID()
        let owned = try await entitlements.owned(by: user)
        let latest = try await bundles(owned.map(\.tourId))
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

    /// `POST /v1/payments/webhook`: the provider's signed event, raw (the signature covers the exact bytes).
    @Sendable func receiveWebhook(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge(limitBytes: context.maxUploadSize)
        }
        try ServiceRequestDecoder.rejectDuplicateNames(in: body.readableBytesView)
        let receipt = try await purchases.receiveWebhook(body: Array(body.readableBytesView), signature: request.headers[Self.signatureHeader])
        let json = #"{"eventId":\#(Self.jsonString(receipt.eventId)),"outcome":"\#(receipt.outcome.rawValue)","received":true}"#
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// `POST /v1/payments/sandbox/{purchaseId}/confirm`: the sandbox provider's "pay".
    @Sendable func confirmSandboxPayment(_ request: Request, context: ServiceRequestContext) async throws -> PurchaseResponse {
        try await sandbox(context, confirm: true)
    }

    /// `POST /v1/payments/sandbox/{purchaseId}/decline`: the sandbox provider's "decline".
    @Sendable func declineSandboxPayment(_ request: Request, context: ServiceRequestContext) async throws -> PurchaseResponse {
        try await sandbox(context, confirm: false)
    }

    /// `GET /v1/exchange-rates`.
    @Sendable func exchangeRateTable(_ request: Request, context: ServiceRequestContext) async throws -> ExchangeRatesResponse {
        ExchangeRatesResponse(try await exchangeRates.table())
    }

    /// `PUT /v1/admin/exchange-rates` (administrators): the whole table.
    @Sendable func replaceExchangeRates(_ request: Request, context: ServiceRequestContext) async throws -> ExchangeRatesResponse {
        let body = try await request.decode(as: ExchangeRatesRequest.self, context: context)
        return ExchangeRatesResponse(try await exchangeRates.replace(body.parsed, at: purchases.now()))
    }

    /// Settles the caller's sandbox checkout named by the path.
    func sandbox(_ context: ServiceRequestContext, confirm: Bool) async throws -> PurchaseResponse {
        let user = try context.requireCallerID()
        let purchaseId = try Self.uuid(context, "purchaseId", .unknownPurchase)
        return PurchaseResponse(try await purchases.sandbox(purchaseId, user: user, confirm: confirm))
    }

    /// A UUID path parameter; the 404 of `notFound` when it is not one.
    static func uuid(_ context: ServiceRequestContext, _ name: String, _ notFound: CommerceError) throws -> UUID {
        try context.parameters.require(name, as: UUID.self, ifInvalid: notFound.problem)
    }

    /// The JSON string literal of `text`.
    static func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
