import Contracts
import Foundation
import ServiceKit

/// Which payment provider takes the money.
public enum PaymentProviderKind: String, Sendable, Hashable, CaseIterable {
    /// In-process stand-in: `POST /v1/payments/sandbox/{purchaseId}/confirm|decline` make it send the signed webhook.
    case sandbox
    /// Stripe Checkout (`POST /v1/checkout/sessions`), confirmed by Stripe's signed webhooks.
    case stripe
}

/// The marketplace settings of `tour-management` (purchases, payments, refunds).
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_PLATFORM_FEE_BPS` | platform fee in basis points (0…10000) | `2000` (20 %) |
/// | `WAYPOINT_PAYMENTS_PROVIDER` | `sandbox` or `stripe` | `sandbox` |
/// | `WAYPOINT_PAYMENTS_WEBHOOK_SECRET` | HMAC key of webhook signatures (Stripe's `whsec_…`) | sandbox: generated on first start and kept in the service database; stripe: required |
/// | `WAYPOINT_STRIPE_SECRET_KEY` | Stripe API key (`sk_…`) | required with `stripe` |
/// | `WAYPOINT_STRIPE_API_URL` | Stripe API base URL | `https://api.stripe.com` |
/// | `WAYPOINT_PAYMENTS_SUCCESS_URL` | where Stripe Checkout sends the buyer after paying | `https://waypoint.invalid/purchases/success` |
/// | `WAYPOINT_PAYMENTS_CANCEL_URL` | where Stripe Checkout sends the buyer who gives up | `https://waypoint.invalid/purchases/cancelled` |
///
/// Every key may also be spelled service-specifically (`WAYPOINT_TOUR_MANAGEMENT_PLATFORM_FEE_BPS`, which wins).
public struct CommerceConfiguration: Sendable, Hashable {
    /// The platform's share of a price, basis points (2000 = 20 %).
    public var platformFeeBasisPoints: Int
    public var provider: PaymentProviderKind
    /// The webhook signing secret; `nil` with the sandbox means "generate one and keep it in the service database".
    public var webhookSecret: String?
    public var stripeSecretKey: String?
    public var stripeAPIURL: URL
    public var checkoutSuccessURL: String
    public var checkoutCancelURL: String
    /// How old a webhook's signed timestamp may be (and how far in the future), as Stripe's libraries: 5 minutes.
    public var webhookTolerance: TimeInterval
    /// How long a checkout can be paid (Stripe's `expires_at`; the sandbox refuses to confirm later).
    public var checkoutLifetime: TimeInterval
    /// How long after `checkoutLifetime` an unfinished purchase still blocks a new one (late webhooks).
    public var pendingGrace: TimeInterval
    /// How long after completion the buyer may ask for a refund.
    public var refundWindow: TimeInterval

    public static let defaultFeeBasisPoints = 2_000

    public init(platformFeeBasisPoints: Int = CommerceConfiguration.defaultFeeBasisPoints, provider: PaymentProviderKind = .sandbox,
                webhookSecret: String? = nil, stripeSecretKey: String? = nil, stripeAPIURL: URL = URL(string: "https://api.stripe.com")!,
                checkoutSuccessURL: String = "https://waypoint.invalid/purchases/success",
                checkoutCancelURL: String = "https://waypoint.invalid/purchases/cancelled",
                webhookTolerance: TimeInterval = 300, checkoutLifetime: TimeInterval = 3_600, pendingGrace: TimeInterval = 300,
                refundWindow: TimeInterval = 14 * 86_400) {
        self.platformFeeBasisPoints = platformFeeBasisPoints
        self.provider = provider
        self.webhookSecret = webhookSecret
        self.stripeSecretKey = stripeSecretKey
        self.stripeAPIURL = stripeAPIURL
        self.checkoutSuccessURL = checkoutSuccessURL
        self.checkoutCancelURL = checkoutCancelURL
        self.webhookTolerance = webhookTolerance
        self.checkoutLifetime = checkoutLifetime
        self.pendingGrace = pendingGrace
        self.refundWindow = refundWindow
    }

    /// Reads the keys of the table above; `stripe` without a webhook secret or an API key is a configuration error.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       serviceName: String = "tour-management") throws -> CommerceConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        var configuration = CommerceConfiguration()
        configuration.platformFeeBasisPoints = try reader.integer("PLATFORM_FEE_BPS", default: defaultFeeBasisPoints, in: 0...10_000)
        configuration.provider = try reader.choice("PAYMENTS_PROVIDER", default: PaymentProviderKind.sandbox)
        configuration.webhookSecret = reader.value("PAYMENTS_WEBHOOK_SECRET")?.value
        configuration.stripeSecretKey = reader.value("STRIPE_SECRET_KEY")?.value
        if let (key, raw) = reader.value("STRIPE_API_URL") {
            guard let url = URL(string: raw.hasSuffix("/") ? String(raw.dropLast()) : raw), ["http", "https"].contains(url.scheme ?? ""),
                  url.host != nil else {
                throw ConfigurationError(key: key, value: raw, expected: "an http(s) base URL such as https://api.stripe.com")
            }
            configuration.stripeAPIURL = url
        }
        configuration.checkoutSuccessURL = reader.string("PAYMENTS_SUCCESS_URL", default: configuration.checkoutSuccessURL)
        configuration.checkoutCancelURL = reader.string("PAYMENTS_CANCEL_URL", default: configuration.checkoutCancelURL)
        if configuration.provider == .stripe {
            guard configuration.stripeSecretKey != nil else {
                throw ConfigurationError(key: reader.genericKey("STRIPE_SECRET_KEY"), value: "",
                                         expected: "the Stripe secret key (sk_…) when WAYPOINT_PAYMENTS_PROVIDER=stripe")
            }
            guard configuration.webhookSecret != nil else {
                throw ConfigurationError(key: reader.genericKey("PAYMENTS_WEBHOOK_SECRET"), value: "",
                                         expected: "the Stripe webhook signing secret (whsec_…) when WAYPOINT_PAYMENTS_PROVIDER=stripe")
            }
        }
        return configuration
    }

    /// The fee and the guide's earnings of `price` at `platformFeeBasisPoints`: fee = price × bps / 10000 rounded half up
    /// to the minor unit, earnings = price − fee.
    public func split(_ price: Money) -> (fee: Money, earnings: Money) {
        Self.split(price, basisPoints: platformFeeBasisPoints)
    }

    public static func split(_ price: Money, basisPoints: Int) -> (fee: Money, earnings: Money) {
        let product = price.amountMinor * Int64(basisPoints)
        let fee = (product + 5_000) / 10_000
        return (Money(amountMinor: fee, currency: price.currency), Money(amountMinor: price.amountMinor - fee, currency: price.currency))
    }
}
