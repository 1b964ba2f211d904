import Contracts
import EventSourcing
import Foundation
import GRDB
import Kafka
import Logging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The one consumer of `waypoint.auth` behind access-token revocation: it feeds `SessionRevoked` into a
/// ``RevokedSessions`` registry that the service's ``AccessTokenVerifier`` consults, so a logout (or any other end of a
/// session) is refused by every service, not only by `auth`.
///
/// - Services with a store (``ServiceStorage/revokedSessions(producerURL:internalToken:options:logger:now:)``) keep each
///   revocation in the table `revoked_sessions` with the consumer's dedupe records and position, and load it before
///   serving: a session revoked before a restart is still refused after it, even while auth or the transport is down.
/// - The stateless gateway uses ``RevokedSessionsFollower``, which reads the topic from its beginning at every start.
///
/// Only revocations whose tokens may still be valid are kept (``RevokedSessions/retention`` after `revokedAt`); older
/// rows are deleted as new revocations arrive.
public enum RevokedSessionsConsumer {
    /// The consumer's name (dedupe records, source positions, readiness check `consumer.revoked_sessions`).
    public static let name = "revoked_sessions"

    /// The session and its refusal end, when `event` is a `SessionRevoked` (other events of the topic: `nil`).
    static func revocation(_ event: PublishedEvent) throws -> SessionRevoked? {
        guard event.eventType == SessionRevoked.eventType else { return nil }
        return try event.decode(SessionRevoked.self)
    }
}

/// `revoked_sessions` on SQLite: `session_id`, `refuse_until_us` (microseconds since 1970).
public struct SQLiteRevokedSessionsHandler: SQLiteEventHandler {
    public let name = RevokedSessionsConsumer.name
    let registry: RevokedSessions

    public init(registry: RevokedSessions) {
        self.registry = registry
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS revoked_sessions (session_id TEXT PRIMARY KEY, refuse_until_us INTEGER NOT NULL) WITHOUT ROWID
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard let revoked = try RevokedSessionsConsumer.revocation(event) else { return }
        let now = registry.now()
        try db.execute(sql: "DELETE FROM revoked_sessions WHERE refuse_until_us <= ?", arguments: [now.microsecondsSince1970])
        guard let until = registry.revoke(sessionId: revoked.sessionId.uuidString.lowercased(), revokedAt: revoked.revokedAt) else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO revoked_sessions (session_id, refuse_until_us) VALUES (?, ?)",
                       arguments: [revoked.sessionId.uuidString.lowercased(), until.microsecondsSince1970])
    }

    /// Creates the table if needed and puts every revocation still in force into the registry.
    func load(_ database: SQLiteServiceDatabase) async throws {
        let rows = try await database.write { db in
            try createTables(db)
            return try Row.fetchAll(db, sql: "SELECT session_id, refuse_until_us FROM revoked_sessions")
                .map { ($0["session_id"] as String, Date(microsecondsSince1970: $0["refuse_until_us"])) }
        }
        for (session, until) in rows { registry.insert(sessionId: session, refuseUntil: until) }
    }
}

/// `revoked_sessions` on PostgreSQL (same semantics as ``SQLiteRevokedSessionsHandler``).
public struct PostgresRevokedSessionsHandler: PostgresEventHandler {
    public let name = RevokedSessionsConsumer.name
    let registry: RevokedSessions

    public init(registry: RevokedSessions) {
        self.registry = registry
    }

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS revoked_sessions (session_id uuid PRIMARY KEY, refuse_until timestamptz NOT NULL)
            """, logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard let revoked = try RevokedSessionsConsumer.revocation(event) else { return }
        let now = registry.now()
        try await connection.query("DELETE FROM revoked_sessions WHERE refuse_until <= \(now)", logger: connection.logger)
        guard let until = registry.revoke(sessionId: revoked.sessionId.uuidString.lowercased(), revokedAt: revoked.revokedAt) else { return }
        try await connection.query("""
            INSERT INTO revoked_sessions (session_id, refuse_until) VALUES (\(revoked.sessionId), \(until))
            ON CONFLICT (session_id) DO UPDATE SET refuse_until = GREATEST(revoked_sessions.refuse_until, excluded.refuse_until)
            """, logger: connection.logger)
    }

    /// Creates the table if needed and puts every revocation still in force into the registry.
    func load(_ database: PostgresServiceDatabase) async throws {
        let rows: [(UUID, Date)] = try await database.transaction { connection in
            try await createTables(connection)
            var rows: [(UUID, Date)] = []
            for try await row in try await connection.query("SELECT session_id, refuse_until FROM revoked_sessions", logger: connection.logger) {
                rows.append(try row.decode((UUID, Date).self))
            }
            return rows
        }
        for (session, until) in rows { registry.insert(sessionId: session.uuidString.lowercased(), refuseUntil: until) }
    }
}

/// A service's revoked-session registry with the consumer that keeps it.
public struct RevokedSessionsFeed: Sendable {
    /// What the service's access-token verifier consults (`ServiceApplication(revokedSessions:)`).
    public let registry: RevokedSessions
    /// The `waypoint.auth` consumer feeding it: one of the application's `background` services; register it with
    /// readiness (`readiness.register(consumer)`).
    public let consumer: any ConsumerService
}

extension ServiceStorage {
    /// The revoked sessions of `waypoint.auth` for this service: loads what the table `revoked_sessions` holds (so
    /// revocations survive a restart) and returns the registry with its consumer, on this storage's transport and
    /// backend (see ``consuming(_:producerURL:internalToken:sqlite:postgres:options:logger:)``). On Kafka it is a consumer
    /// group of its own, `<service>-revoked-sessions` (unless `options` names one): sharing the service's group with its
    /// other consumer of `waypoint.auth` would split the topic's partitions between the two.
    public func revokedSessions(producerURL: URL?, internalToken: String?, options: ConsumerOptions = ConsumerOptions(),
                                logger: Logger, now: @escaping @Sendable () -> Date = Date.init) async throws -> RevokedSessionsFeed {
        let registry = RevokedSessions(now: now)
        let sqliteHandler = SQLiteRevokedSessionsHandler(registry: registry)
        let postgresHandler = PostgresRevokedSessionsHandler(registry: registry)
        if let sqlite {
            try await sqliteHandler.load(sqlite)
        } else if let postgres {
            try await postgresHandler.load(postgres)
        }
        var options = options
        if options.consumerGroup == nil { options.consumerGroup = "\(settings.serviceName)-revoked-sessions" }
        let consumer = try consuming(.auth, producerURL: producerURL, internalToken: internalToken, sqlite: sqliteHandler,
                                     postgres: postgresHandler, options: options, logger: logger)
        return RevokedSessionsFeed(registry: registry, consumer: consumer)
    }
}

/// ``RevokedSessionsConsumer`` for a service without a store (the gateway): reads `waypoint.auth` from its beginning at
/// every start — on Kafka as a consumer group of its own (earliest offset, nothing committed), on the embedded transport
/// from position 0 of auth's feed — and keeps the revocations still in force in memory. Until it has caught up after a
/// start (``isCaughtUp``), a session revoked before the start may still be accepted; transport errors are retried with
/// back-off (100 ms → 5 s).
public final class RevokedSessionsFollower: Service, Sendable {
    /// Where `waypoint.auth` comes from.
    public enum Transport: Sendable {
        /// auth's embedded feed (`GET {authURL}/v1/internal/events`).
        case embedded(authURL: URL, internalToken: String?)
        /// Kafka topic `waypoint.auth`.
        case kafka(brokers: String, properties: [String: String], clientID: String)
    }

    public let registry: RevokedSessions
    let transport: Transport
    let pollTimeout: Duration
    let logger: Logger
    private let caughtUp = Atomic<Bool>(false)

    public init(transport: Transport, registry: RevokedSessions = RevokedSessions(), pollTimeout: Duration = .seconds(1),
                logger: Logger) {
        self.transport = transport
        self.registry = registry
        self.pollTimeout = pollTimeout
        var logger = logger
        logger[metadataKey: "consumer"] = "\(RevokedSessionsConsumer.name)"
        self.logger = logger
    }

    /// Whether the follower has read the topic up to its end once since it started.
    public var isCaughtUp: Bool { caughtUp.load(ordering: .acquiring) }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            switch self.transport {
            case .embedded(let url, let token):
                var base = url.absoluteString
                while base.hasSuffix("/") { base.removeLast() }
                let feed = EmbeddedFeed(source: Topic.auth.producingService ?? "auth", baseURL: base, internalToken: token ?? "",
                                        eventTypes: [SessionRevoked.eventType])
                await self.follow(EmbeddedFeedSource(feeds: [feed]), isAssigned: { true })
            case .kafka(let brokers, let properties, let clientID):
                let overrides = ["auto.offset.reset": "earliest", "enable.auto.commit": "false"]
                guard let consumer = await self.makeConsumer(brokers: brokers, properties: properties.merging(overrides) { _, fixed in fixed },
                                                             clientID: clientID) else { return }
                await self.follow(KafkaEventSource(consumer: consumer, logger: self.logger),
                                  isAssigned: { (try? consumer.assignment().isEmpty == false) ?? false })
            }
        }
    }

    private func makeConsumer(brokers: String, properties: [String: String], clientID: String) async -> KafkaConsumer? {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                return try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: clientID, properties: properties),
                                         groupID: "\(clientID)-revoked-sessions-\(UUID.v4().uuidString.lowercased())",
                                         topics: [Topic.auth.name], logger: logger)
            } catch {
                logger.error("cannot create the Kafka consumer; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    private func follow(_ source: some EventSource, isAssigned: @Sendable () -> Bool) async {
        var positions: [String: Int64] = [:]
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                // While catching up, an empty poll must mean "nothing more", not a long poll's timeout.
                let events = try await source.next(maxEvents: 500, timeout: isCaughtUp ? pollTimeout : .milliseconds(100), positions: positions)
                for incoming in events {
                    do {
                        if let revoked = try RevokedSessionsConsumer.revocation(incoming.event) {
                            registry.revoke(sessionId: revoked.sessionId.uuidString.lowercased(), revokedAt: revoked.revokedAt)
                        }
                    } catch {
                        logger.error("SessionRevoked cannot be read; skipped", metadata: ["event": "\(incoming.event.eventID)", "error": "\(error)"])
                    }
                    if case .feed(let position) = incoming.receipt { positions[incoming.event.source] = position }
                }
                try await source.acknowledge(events)
                backoff = .milliseconds(100)
                if events.isEmpty, !isCaughtUp, isAssigned() {
                    caughtUp.store(true, ordering: .releasing)
                    logger.debug("revoked sessions caught up", metadata: ["sessions": "\(registry.count)"])
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("waypoint.auth unavailable; retrying", metadata: ["error": "\(error)", "retry.in": "\(backoff)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        await source.close()
    }
}
