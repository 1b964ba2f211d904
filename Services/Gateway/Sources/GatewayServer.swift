import Foundation
import GatewayNotifications
import Logging
import Messaging
import ServiceKit

/// The gateway's composition root as ServiceKit's generic `serve` runs it (``ServeCommand``): no storage, the push
/// stream's hub and the follower of revoked sessions assembled once, then the gateway application (``buildGateway``).
public struct GatewayServer: ServableService {
    public typealias Configuration = GatewayConfiguration
    /// The gateway has no event store or database of its own.
    public typealias Storage = Void

    /// "Run the gateway (the default)."
    public static var serveAbstract: String { "Run the gateway (the default)." }

    /// Everything read from the environment.
    public let configuration: GatewayConfiguration
    /// The push stream: notifications from `waypoint.notifications` (Kafka) or the producers' embedded feeds, buffered
    /// per user in memory, served as Server-Sent Events to the verified caller (docs/notifications.md).
    public let hub: NotificationHub
    /// Sessions auth revoked (`waypoint.auth`, on the hub's transport): the edge refuses their access tokens.
    public let revocations: RevokedSessionsFollower

    /// Reads the push stream's settings from the environment and creates the hub and the revocation follower.
    public static func assemble(_ configuration: GatewayConfiguration, storage: Void, logger: Logger) async throws -> GatewayServer {
        let hubConfiguration = try NotificationHubConfiguration.fromEnvironment(internalToken: configuration.service.internalToken)
        let hub = NotificationHub(configuration: hubConfiguration, logger: logger)
        let revocations = RevokedSessionsFollower(transport: revocationTransport(hubConfiguration.transport,
                                                                                 internalToken: configuration.service.internalToken),
                                                  logger: logger)
        return GatewayServer(configuration: configuration, hub: hub, revocations: revocations)
    }

    /// The gateway with the hub and the follower as its background work and the push stream mounted.
    public func makeApplication(logger: Logger) throws -> GatewayApplication {
        try buildGateway(configuration: configuration, revokedSessions: revocations.registry, logger: logger,
                         background: [hub, revocations], extensions: { [hub] in $0.addPushStream(hub: hub) })
    }

    /// Revoked sessions come on the hub's transport: Kafka with the gateway's client id, or auth's embedded feed.
    static func revocationTransport(_ transport: NotificationHubConfiguration.Transport, internalToken: String?)
        -> RevokedSessionsFollower.Transport {
        switch transport {
        case .kafka(let brokers, let properties):
            .kafka(brokers: brokers, properties: properties, clientID: "gateway")
        case .embedded(_, let auth):
            .embedded(authURL: auth.flatMap { URL(string: $0.baseURL) } ?? ServiceEndpoints.localBaseURLs["auth"]!,
                      internalToken: internalToken)
        }
    }
}

extension GatewayConfiguration: ServableConfiguration {}
