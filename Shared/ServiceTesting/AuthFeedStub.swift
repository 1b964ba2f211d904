import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit

/// A stand-in for a producing service in another service's tests: its embedded feed on a loopback port, over a log
/// the test appends that producer's integration events to (what the service's consumer of its topic reads).
public struct ProducerFeedStub: Sendable {
    public let storage: ServiceStorage
    /// The feed's base URL (the consuming service's `WAYPOINT_<PRODUCER>_URL`).
    public let url: URL

    /// The producer published `event` on `stream`.
    public func publish<Event: IntegrationEvent>(_ event: Event, on stream: String) async throws {
        let new = try NewEvent(eventType: Event.eventType, schemaVersion: Event.schemaVersion, encoding: event)
        _ = try await storage.store.append([new], to: stream, expectedVersion: .any)
    }

    /// Runs `body` with the feed of `producer` listening; it requires `internalToken`, as every producer's does.
    public static func with<T: Sendable>(_ producer: String, internalToken: String, logger: Logger,
                                         _ body: @escaping @Sendable (ProducerFeedStub) async throws -> T) async throws -> T {
        try await TestBackend.sqlite.withServiceStorage(producer, logger: logger) { storage in
            try await LoopbackServer.run({ reportPort in
                try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: producer, port: 0, internalToken: internalToken, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: logger,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in storage.addFeedRoutes(to: routes) }
            }, body: { port in try await body(ProducerFeedStub(storage: storage, url: URL(string: "http://127.0.0.1:\(port)")!)) })
        }
    }
}

/// A stand-in for auth in a service's tests: its embedded feed on a loopback port, over a log the test appends
/// `UserErased` to (what the service's `waypoint.auth` consumer reads).
public struct AuthFeedStub: Sendable {
    public let feed: ProducerFeedStub
    public var storage: ServiceStorage { feed.storage }
    /// The feed's base URL (the service's `WAYPOINT_AUTH_URL`).
    public var url: URL { feed.url }

    /// auth erased `user`.
    public func erase(_ user: UUID) async throws {
        try await feed.publish(UserErased(userId: user, erasedAt: Date()), on: "user-\(user.uuidString.lowercased())")
    }

    /// auth revoked `session` of `user` (a logout).
    public func revoke(session: UUID, of user: UUID) async throws {
        try await feed.publish(SessionRevoked(sessionId: session, userId: user, reason: .logout, revokedAt: Date()),
                               on: "session-\(session.uuidString.lowercased())")
    }

    /// Runs `body` with the feed listening; it requires `internalToken`, as auth's does.
    public static func with<T: Sendable>(internalToken: String, logger: Logger, _ body: @escaping @Sendable (AuthFeedStub) async throws -> T) async throws -> T {
        try await ProducerFeedStub.with("auth", internalToken: internalToken, logger: logger) { try await body(AuthFeedStub(feed: $0)) }
    }
}
