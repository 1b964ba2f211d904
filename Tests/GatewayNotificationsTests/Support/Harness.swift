import Contracts
import EventSourcing
import Foundation
import GatewayNotifications
import HTTPTypes
import Hummingbird
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import ServiceTesting
import TourManagement

/// The test's stand-in for tour-management: its real log (SQLite), its real `UserNotifier` and its embedded feed as
/// tour-management mounts it (`TourManagementEvents.isServedByFeed`), served on loopback by a real `ServiceApplication`;
/// on Kafka also its relays (`TourManagementEvents.topics`).
struct NotificationProducer: Sendable {
    static let token = "notifications-test-internal-token"
    static let quiet = LoopbackServer.quietLogger

    let storage: ServiceStorage
    var store: AnyEventStore { AnyEventStore(storage.store) }

    /// Runs the producer on loopback for the duration of `body` (given its base URL); `serves` is what its feed serves
    /// (another producer, e.g. `auth`, passes its own).
    static func run<T: Sendable>(serviceName: String = "tour-management", kafka: KafkaSettings? = nil,
                                 serves include: @escaping @Sendable (EventEnvelope) -> Bool = TourManagementEvents.isServedByFeed,
                                 _ body: @Sendable (NotificationProducer, String) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory("waypoint-notification-producer")
        defer { directory.remove() }
        let settings = try TestBackend.sqlite.runtime(serviceName, in: directory, kafkaBrokers: kafka?.brokers,
                                                      kafkaProperties: kafka?.properties ?? [:])
        return try await ServiceStorage.withOpen(settings, logger: quiet) { storage in
            let producer = NotificationProducer(storage: storage)
            return try await LoopbackServer.run({ reportPort in
                let notifier = UserNotifier(store: AnyEventStore(storage.store), checkpoints: storage.checkpoints, rules: UserNotificationRules.notification(for:), logger: quiet)
                return try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: serviceName, port: 0, internalToken: token, logLevel: .warning),
                    background: try storage.publishing(TourManagementEvents.topics, logger: quiet) + [notifier], logger: quiet,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in
                    storage.addFeedRoutes(to: routes, include: include)
                }
            }, body: { port in try await body(producer, "http://127.0.0.1:\(port)") })
        }
    }

    /// A completed purchase by `buyer` (what the sandbox webhook appends); returns the id of the notification it causes.
    @discardableResult
    func completePurchase(buyer: UUID, tour: UUID = .v4(), amountMinor: Int64 = 1_299) async throws -> UUID {
        let price = Money(amountMinor: amountMinor, currency: .eur)
        let event = try PurchaseCompleted(purchaseId: .v4(), tourId: tour, userId: buyer, guideId: .v4(), revision: 1, price: price,
                                          platformFee: Money(amountMinor: 0, currency: .eur), guideEarnings: price,
                                          providerPaymentId: "sbx_pi", completedAt: Date()).newEvent()
        try await store.append(event, to: "access-\(tour.uuidString.lowercased())-\(buyer.uuidString.lowercased())", expectedVersion: .any)
        return UserNotificationRules.notificationID(for: event.eventID)
    }

    /// A tour event that notifies nobody (the feed serves it; the hub must skip it).
    func unrelatedEvent() async throws {
        let event = try TourViewed(tourId: .v4(), guideId: .v4(), viewer: "client:x", userId: nil, viewedAt: Date()).newEvent()
        try await store.append(event, to: "views-\(UUID.v4().uuidString.lowercased())", expectedVersion: .any)
    }
}

/// Kafka settings of a test (the mock cluster's bootstrap servers and client properties).
struct KafkaSettings: Sendable {
    var brokers: String
    var properties: [String: String]
}

/// The test's stand-in for the gateway: a plain Hummingbird router with the notification route mounted as the gateway
/// mounts it (the user id comes from the `X-Test-User` header where the gateway takes the verified token's subject),
/// and the hub running beside the server.
enum NotificationGateway {
    static let userHeader = HTTPField.Name("X-Test-User")!

    /// Runs `hub` and the HTTP server on loopback for the duration of `body` (given the port), then shuts both down
    /// gracefully — which must end any stream still open.
    static func run<T: Sendable>(hub: NotificationHub, _ body: @Sendable (Int) async throws -> T) async throws -> T {
        try await LoopbackServer.run({ report in application(hub: hub, reportPort: report) }, beside: [hub], body: body)
    }

    static func application(hub: NotificationHub, reportPort: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        addNotificationStreamRoute(to: router, hub: hub) { request, _ in
            guard let user = request.headers[userHeader] else { throw HTTPError(.unauthorized) }
            return user
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                           onServerRunning: { reportPort($0.localAddress!.port!) }, logger: LoopbackServer.quietLogger)
    }

    /// A hub reading the producer's embedded feed (and `auth`'s, for erasures, when given).
    static func embeddedHub(producerURL: String, authURL: String? = nil, keepAlive: Duration = .seconds(15),
                            perUserLimit: Int = 100) -> NotificationHub {
        let feed = EmbeddedFeed(source: "tour-management", baseURL: producerURL, internalToken: NotificationProducer.token)
        let auth = authURL.map { EmbeddedFeed(source: "auth", baseURL: $0, internalToken: NotificationProducer.token) }
        return NotificationHub(configuration: NotificationHubConfiguration(
            transport: .embedded(producers: [feed], auth: auth), perUserLimit: perUserLimit, keepAlive: keepAlive,
            pollTimeout: .seconds(2)), logger: LoopbackServer.quietLogger)
    }
}
