import AsyncHTTPClient
import Contracts
import Foundation
import NIOCore

/// Stripe Checkout over its REST API (form-encoded requests, `Authorization: Bearer sk_…`):
///
/// - `createCheckout`: `POST /v1/checkout/sessions` — `mode=payment`, one line item with the tour's price and title,
///   `expires_at`, `client_reference_id` = purchase id, and `metadata` {purchaseId, tourId, userId} on the session and
///   (`payment_intent_data[metadata]`) on the payment intent, so every later event object names the purchase. Sent with
///   `Idempotency-Key: purchase-<id>`: Stripe answers a repeated request with the same session.
/// - `checkoutURL`: `GET /v1/checkout/sessions/{id}` → `url`.
/// - `refund`: `POST /v1/refunds` `payment_intent=…` with `Idempotency-Key: refund-<purchase id>`; the refund is confirmed by
///   the `charge.refunded` webhook.
///
/// Amounts are minor units of the ISO 4217 exponent, which is what Stripe expects for all but a few currencies (HUF, ISK,
/// UGX and the three-decimal ones have Stripe-specific rules; tours in those currencies are not special-cased yet).
public struct StripePaymentProvider: PaymentProvider {
    public let name = "stripe"
    let apiURL: URL
    let secretKey: String
    let httpClient: HTTPClient
    let timeout: TimeAmount

    public init(apiURL: URL = URL(string: "https://api.stripe.com")!, secretKey: String, httpClient: HTTPClient = .shared,
                timeout: TimeAmount = .seconds(10)) {
        self.apiURL = apiURL
        self.secretKey = secretKey
        self.httpClient = httpClient
        self.timeout = timeout
    }

    struct Session: Decodable {
        var id: String
        var url: String?
    }

    public func createCheckout(_ request: CheckoutRequest) async throws -> CheckoutSession {
        var form: [(String, String)] = [
            ("mode", "payment"),
            ("client_reference_id", request.purchaseId.uuidString.lowercased()),
            ("success_url", request.successURL),
            ("cancel_url", request.cancelURL),
            ("expires_at", String(Int64(request.expiresAt.timeIntervalSince1970.rounded(.down)))),
            ("line_items[0][quantity]", "1"),
            ("line_items[0][price_data][currency]", request.price.currency.code.lowercased()),
            ("line_items[0][price_data][unit_amount]", String(request.price.amountMinor)),
            ("line_items[0][price_data][product_data][name]", request.title),
        ]
        for (key, value) in StripeEventBody.metadata(purchaseId: request.purchaseId, tourId: request.tourId, userId: request.userId).sorted(by: { $0.key < $1.key }) {
            form.append(("metadata[\(key)]", value))
            form.append(("payment_intent_data[metadata][\(key)]", value))
        }
        let session: Session = try await call(.post, "/v1/checkout/sessions", form: form,
                                              idempotencyKey: "purchase-\(request.purchaseId.uuidString.lowercased())")
        return CheckoutSession(reference: session.id, url: session.url)
    }

    public func checkoutURL(reference: String, purchaseId: UUID) async throws -> String? {
        let escaped = reference.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? reference
        let session: Session = try await call(.get, "/v1/checkout/sessions/\(escaped)", form: nil, idempotencyKey: nil)
        return session.url
    }

    struct Refund: Decodable {
        var id: String
    }

    public func refund(_ request: RefundRequest, deliver: WebhookDelivery) async throws {
        var form: [(String, String)] = [("payment_intent", request.paymentId), ("reason", "requested_by_customer")]
        for (key, value) in StripeEventBody.metadata(purchaseId: request.purchaseId, tourId: request.tourId, userId: request.userId).sorted(by: { $0.key < $1.key }) {
            form.append(("metadata[\(key)]", value))
        }
        let _: Refund = try await call(.post, "/v1/refunds", form: form, idempotencyKey: "refund-\(request.purchaseId.uuidString.lowercased())")
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `application/x-www-form-urlencoded`, every key and value percent-encoded outside the unreserved set.
    static func formBody(_ form: [(String, String)]) -> String {
        form.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: unreserved) ?? key)=\(value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)"
        }.joined(separator: "&")
    }

    struct StripeErrorBody: Decodable {
        struct Detail: Decodable {
            var type: String?
            var code: String?
        }

        var error: Detail?
    }

    enum Method { case get, post }

    func call<Result: Decodable>(_ method: Method, _ path: String, form: [(String, String)]?, idempotencyKey: String?) async throws -> Result {
        var request = HTTPClientRequest(url: apiURL.absoluteString + path)
        request.method = method == .post ? .POST : .GET
        request.headers.add(name: "Authorization", value: "Bearer \(secretKey)")
        request.headers.add(name: "Accept", value: "application/json")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.formBody(form)))
        }
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await httpClient.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw CommerceError.provider("Stripe unreachable: \(type(of: error))")
        }
        let data = Data(body.readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            let detail = (try? JSONDecoder().decode(StripeErrorBody.self, from: data))?.error
            throw CommerceError.provider("Stripe \(response.status.code) \(detail?.code ?? detail?.type ?? "error")")
        }
        do {
            return try JSONDecoder().decode(Result.self, from: data)
        } catch {
            throw CommerceError.provider("unexpected Stripe answer")
        }
    }
}
