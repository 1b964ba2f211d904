import ArgumentParser
import Foundation
import GatewayNotifications
import Messaging
import ServiceKit

/// `gateway` — the executable: `serve` (the default) runs the public entry point until SIGTERM or SIGINT.
public struct GatewayCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Waypoint's public entry point: routing, edge auth, rate limits, caching, the push stream.",
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self)

    public init() {}

    /// Runs the gateway.
    public struct Serve: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(abstract: "Run the gateway (the default).")

        public init() {}

        public func run() async throws {
            let configuration = try GatewayConfiguration.fromEnvironment()
            ServiceLogging.bootstrap(configuration.service)
            let logger = ServiceLogging.makeLogger(configuration.service)
            // The push stream: notifications from `waypoint.notifications` (Kafka) or the producers' embedded feeds,
            // buffered per user in memory, served as Server-Sent Events to the verified caller (docs/notifications.md).
            let hubConfiguration = try NotificationHubConfiguration.fromEnvironment(internalToken: configuration.service.internalToken)
            let hub = NotificationHub(configuration: hubConfiguration, logger: logger)
            // Sessions auth revoked (`waypoint.auth`, on the hub's transport): the edge refuses their access tokens.
            let revocations = RevokedSessionsFollower(transport: Self.revocationTransport(hubConfiguration.transport,
                                                                                          internalToken: configuration.service.internalToken),
                                                      logger: logger)
            let app = try buildGateway(configuration: configuration, revokedSessions: revocations.registry, logger: logger,
                                       background: [hub, revocations], extensions: { $0.addPushStream(hub: hub) })
            try await app.run()
        }

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
}
