import Contracts
import Foundation
import Hummingbird
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
