import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit

/// A stand-in for auth in a service's tests: its embedded feed on a loopback port, over a log the test appends
/// `UserErased` to (what the service's `waypoint.auth` consumer reads).
public struct AuthFeedStub: Sendable {
    public let storage: ServiceStorage
    /// The feed's base URL (the service's `WAYPOINT_AUTH_URL`).
    public let url: URL

    /// auth erased `user`.
    public func erase(_ user: UUID) async throws {
        let event = try NewEvent(eventType: UserErased.eventType, schemaVersion: UserErased.schemaVersion,
                                 encoding: UserErased(userId: user, erasedAt: Date()))
        _ = try await storage.store.append([event], to: "user-\(user.uuidString.lowercased())", expectedVersion: .any)
    }

    /// auth revoked `session` of `user` (a logout).
    public func revoke(session: UUID, of user: UUID) async throws {
        let event = try NewEvent(eventType: SessionRevoked.eventType, schemaVersion: SessionRevoked.schemaVersion,
                                 encoding: SessionRevoked(sessionId: session, userId: user, reason: .logout, revokedAt: Date()))
        _ = try await storage.store.append([event], to: "session-\(session.uuidString.lowercased())", expectedVersion: .any)
    }

    /// Runs `body` with the feed listening; it requires `internalToken`, as auth's does.
    public static func with<T: Sendable>(internalToken: String, logger: Logger, _ body: @escaping @Sendable (AuthFeedStub) async throws -> T) async throws -> T {
        try await TestBackend.sqlite.withServiceStorage("auth", logger: logger) { storage in
            try await LoopbackServer.run({ reportPort in
                try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: "auth", port: 0, internalToken: internalToken, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: logger,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in storage.addFeedRoutes(to: routes) }
            }, body: { port in try await body(AuthFeedStub(storage: storage, url: URL(string: "http://127.0.0.1:\(port)")!)) })
        }
    }
}
