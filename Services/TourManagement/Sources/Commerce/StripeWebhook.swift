import Crypto
import Foundation
import ServiceKit

/// Stripe's webhook signature scheme, which every provider of this service speaks (the sandbox too).
///
/// Header `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; `v1` is HMAC-SHA256 keyed with the endpoint secret
/// (the whole `whsec_…` string, as Stripe's libraries use it) over `"<t>.<raw body>"`. A request is authentic when any
/// `v1` matches (Stripe sends several while a secret is being rolled), compared in constant time, and `t` is within the
/// tolerance (5 minutes) of now — in the past, as Stripe checks, and also in the future, so a signature made with a
/// clock far ahead cannot be replayed later. Other schemes (`v0`) are ignored.
public enum StripeSignature {
    public static let headerName = "Stripe-Signature"

    /// Why a webhook was refused (each a 400).
    public enum Failure: Error, Sendable, Hashable, ProblemConvertible {
        case missingHeader
        case malformedHeader
        case stale(timestamp: Int64)
        case mismatch

        public var problem: Problem {
            switch self {
            case .missingHeader: Problem.badRequest("The Stripe-Signature header is missing.", code: "missing-signature")
            case .malformedHeader: Problem.badRequest("The Stripe-Signature header needs t=<unix time> and at least one v1=<hex>.",
                                                      code: "malformed-signature")
            case .stale: Problem.badRequest("The signature's timestamp is more than 5 minutes away from now.", code: "stale-signature")
            case .mismatch: Problem.badRequest("No v1 signature matches the body.", code: "invalid-signature")
            }
        }
    }

    /// The lower-case hex HMAC-SHA256 of `"<timestamp>.<payload>"` under `secret`.
    public static func signature(payload: some Collection<UInt8>, secret: String, timestamp: Int64) -> String {
        var signed = Array("\(timestamp).".utf8)
        signed.append(contentsOf: payload)
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Array(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// A `Stripe-Signature` value for `payload` signed at `date`.
    public static func header(payload: some Collection<UInt8>, secret: String, at date: Date) -> String {
        let timestamp = Int64(date.timeIntervalSince1970.rounded(.down))
        return "t=\(timestamp),v1=\(signature(payload: payload, secret: secret, timestamp: timestamp))"
    }

    /// Checks `header` against `payload`; throws a ``Failure`` unless authentic and fresh.
    public static func verify(payload: some Collection<UInt8>, header: String?, secret: String, tolerance: TimeInterval, now: Date) throws {
        guard let header, !header.isEmpty else { throw Failure.missingHeader }
        var timestamp: Int64?
        var candidates: [String] = []
        for item in header.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces), value = parts[1].trimmingCharacters(in: .whitespaces)
            if key == "t" { timestamp = Int64(value) } else if key == "v1" { candidates.append(value.lowercased()) }
        }
        guard let timestamp, !candidates.isEmpty, candidates.count <= 16 else { throw Failure.malformedHeader }
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { throw Failure.stale(timestamp: timestamp) }
        let expected = signature(payload: payload, secret: secret, timestamp: timestamp)
        // Every candidate is compared in full, whichever matches.
        var matched = false
        for candidate in candidates { matched = ConstantTime.equals(candidate, expected) || matched }
        guard matched else { throw Failure.mismatch }
    }
}

/// The part of a Stripe event this service reads. Unknown fields are ignored; fields that Stripe may send in another
/// shape (an expanded `payment_intent`, an empty `metadata` list from old API versions) read as absent.
public struct StripeEvent: Decodable, Sendable {
    public var id: String
    public var type: String
    public var created: Int64?
    public var object: StripeObject

    enum CodingKeys: String, CodingKey {
        case id, type, created, data
    }

    enum DataKeys: String, CodingKey {
        case object
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decode(String.self, forKey: .type)
        created = try? container.decodeIfPresent(Int64.self, forKey: .created)
        object = try container.nestedContainer(keyedBy: DataKeys.self, forKey: .data).decode(StripeObject.self, forKey: .object)
    }
}

/// `data.object` of a Stripe event: a checkout session, payment intent or charge.
public struct StripeObject: Decodable, Sendable {
    public var id: String?
    public var metadata: [String: String]
    public var paymentIntent: String?
    public var paymentStatus: String?
    public var amountTotal: Int64?
    public var currency: String?
    public var refunded: Bool?
    public var failureCode: String?

    enum CodingKeys: String, CodingKey {
        case id, metadata, currency, refunded
        case paymentIntent = "payment_intent"
        case paymentStatus = "payment_status"
        case amountTotal = "amount_total"
        case lastPaymentError = "last_payment_error"
    }

    struct PaymentError: Decodable {
        var code: String?
        var declineCode: String?

        enum CodingKeys: String, CodingKey {
            case code
            case declineCode = "decline_code"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        metadata = (try? container.decodeIfPresent([String: String].self, forKey: .metadata)) ?? [:]
        paymentIntent = try? container.decodeIfPresent(String.self, forKey: .paymentIntent)
        paymentStatus = try? container.decodeIfPresent(String.self, forKey: .paymentStatus)
        amountTotal = try? container.decodeIfPresent(Int64.self, forKey: .amountTotal)
        currency = try? container.decodeIfPresent(String.self, forKey: .currency)
        refunded = try? container.decodeIfPresent(Bool.self, forKey: .refunded)
        let error = try? container.decodeIfPresent(PaymentError.self, forKey: .lastPaymentError)
        failureCode = error?.declineCode ?? error?.code
    }

    /// `metadata.purchaseId`, `tourId`, `userId` as set at checkout, when all three are UUIDs.
    public var purchaseKeys: (purchaseId: UUID, tourId: UUID, userId: UUID)? {
        guard let purchase = metadata["purchaseId"].flatMap(UUID.init(uuidString:)),
              let tour = metadata["tourId"].flatMap(UUID.init(uuidString:)),
              let user = metadata["userId"].flatMap(UUID.init(uuidString:)) else { return nil }
        return (purchase, tour, user)
    }
}

/// Stripe-shaped event bodies, as the sandbox sends them (and tests stand in for Stripe with).
public enum StripeEventBody {
    /// `{"id","object":"event","type","created","livemode":false,"data":{"object":…}}` with sorted keys.
    public static func make(type: String, id: String = "evt_\(randomHex(12))", created: Date, object: [String: Any]) -> [UInt8] {
        let event: [String: Any] = [
            "id": id, "object": "event", "type": type, "created": Int64(created.timeIntervalSince1970.rounded(.down)), "livemode": false,
            "api_version": "2024-06-20", "data": ["object": object],
        ]
        return Array((try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])) ?? Data())
    }

    /// The `metadata` every object of a purchase carries.
    public static func metadata(purchaseId: UUID, tourId: UUID, userId: UUID) -> [String: String] {
        ["purchaseId": purchaseId.uuidString.lowercased(), "tourId": tourId.uuidString.lowercased(), "userId": userId.uuidString.lowercased()]
    }

    public static func randomHex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
