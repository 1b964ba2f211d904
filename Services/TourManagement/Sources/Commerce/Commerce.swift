import AsyncHTTPClient
import Contracts
import Crypto
import EventSourcing
import Foundation
import Logging
import Messaging

/// The marketplace part of `tour-management`, opened over the service's storage: purchases and refunds through the
/// configured payment provider, the webhook, the entitlements read model's reads, and exchange rates.
///
/// Open it once (it creates its tables and, with the sandbox and no configured secret, the webhook secret), then make
/// ``Purchases`` and ``CommerceRoutes`` with the application's clock.
public struct Commerce: Sendable {
    public let configuration: CommerceConfiguration
    public let store: AnyEventStore
    public let catalog: TourCatalog
    public let entitlements: Entitlements
    public let exchangeRates: ExchangeRates
    public let records: any PaymentRecords
    /// The secret webhooks are signed with (configured, or the sandbox's generated one).
    public let webhookSecret: String
    let httpClient: HTTPClient
    let logger: Logger

    /// The key of the generated sandbox secret in `payment_settings`.
    static let sandboxSecretKey = "sandbox_webhook_secret"

    /// Opens the marketplace over the service's opened stores.
    public static func open(_ configuration: CommerceConfiguration, stores: TourManagementStores, httpClient: HTTPClient = .shared,
                            logger: Logger = Logger(label: "waypoint.tour-management.commerce")) async throws -> Commerce {
        let storage = stores.storage, records = stores.paymentRecords
        let secret: String
        if let configured = configuration.webhookSecret {
            secret = configured
        } else {
            // Only the sandbox gets here (`fromEnvironment` requires the secret with Stripe): generated once, kept in the
            // service database so that every instance and every restart signs and verifies alike.
            let random = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }.map { String(format: "%02x", $0) }.joined()
            secret = try await records.setting(sandboxSecretKey, insertingIfMissing: "whsec_sbx_\(random)")
        }
        return Commerce(configuration: configuration, store: AnyEventStore(storage.store),
                        catalog: TourCatalog(store: stores.catalog),
                        entitlements: Entitlements(store: stores.entitlements),
                        exchangeRates: ExchangeRates(store: stores.exchangeRates),
                        records: records, webhookSecret: secret, httpClient: httpClient, logger: logger)
    }

    /// The configured provider, on `now`'s clock (the sandbox signs its webhooks at `now()`).
    public func provider(now: @escaping @Sendable () -> Date = Date.init) -> any PaymentProvider {
        switch configuration.provider {
        case .sandbox:
            SandboxPaymentProvider(records: records, webhookSecret: webhookSecret, now: now)
        case .stripe:
            StripePaymentProvider(apiURL: configuration.stripeAPIURL, secretKey: configuration.stripeSecretKey ?? "", httpClient: httpClient)
        }
    }

    public func purchases(now: @escaping @Sendable () -> Date = Date.init, provider: (any PaymentProvider)? = nil) -> Purchases {
        Purchases(configuration: configuration, store: store, catalog: catalog, provider: provider ?? self.provider(now: now),
                  webhookSecret: webhookSecret, now: now, logger: logger)
    }

    /// The HTTP routes; `bundles` tells `GET /v1/me/tours` the latest offline bundle of owned tours (none yet).
    public func routes(now: @escaping @Sendable () -> Date = Date.init,
                       bundles: @escaping @Sendable ([UUID]) async throws -> [UUID: OwnedTourBundle] = { _ in [:] }) -> CommerceRoutes {
        CommerceRoutes(purchases: purchases(now: now), entitlements: entitlements, exchangeRates: exchangeRates, bundles: bundles)
    }
}
