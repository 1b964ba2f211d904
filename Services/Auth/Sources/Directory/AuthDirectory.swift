import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Auth's read model, kept in memory and folded from the whole log: users, sessions and uniqueness claims, with the
/// lookups login and refresh need (email, username, external identity).
///
/// Decision: in memory rather than in SQL tables. Every answer auth gives is a point lookup, the model is small (a
/// few hundred bytes per user and session), both backends share one implementation, and a restart rebuilds it by
/// replaying the log (1M events/s on SQLite). Personal fields are opened with the user's key while folding, so after an
/// erasure a rebuild finds nothing to open. Commands read a record with its stream version and append with
/// `.exact(version)`: the log, not this cache, decides conflicts. Past a few million users a SQL projection with the
/// same interface would replace it.
public final class AuthDirectory: Service, Sendable {
    public typealias Opener = @Sendable (SealedPersonalData) async throws -> String?

    struct State: Sendable, Hashable {
        var position: Int64 = 0
        var users: [UUID: UserRecord] = [:]
        var sessions: [UUID: SessionRecord] = [:]
        var reservations: [String: ReservationRecord] = [:]
        var userByEmail: [String: UUID] = [:]
        var userByUsername: [String: UUID] = [:]
        var userByExternalIdentity: [String: UUID] = [:]
        var sessionsByUser: [UUID: Set<UUID>] = [:]
    }

    private let store: any EventStore
    private let open: Opener
    private let logger: Logger
    private let pollInterval: Duration
    private let state = Mutex(State())
    private let failure = Mutex<String?>(nil)
    private let syncLock = AsyncLock()

    /// Creates an empty directory over `store`; call ``sync()`` (or run it as a `Service`) to fold the log.
    public init(store: any EventStore, open: @escaping Opener, pollInterval: Duration = .milliseconds(500),
                logger: Logger = Logger(label: "waypoint.auth.directory")) {
        self.store = store
        self.open = open
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Folds every event appended since the last sync. Safe to call concurrently (one fold at a time).
    public func sync() async throws {
        try await syncLock.withLock {
            while true {
                let after = self.state.withLock { $0.position }
                let events = try await self.store.readAll(after: after, limit: 1_000)
                if events.isEmpty { return }
                for envelope in events {
                    try await self.fold(envelope)
                }
            }
        }
    }

    /// Follows the log until shutdown (appends by other instances arrive within `pollInterval`).
    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.sync()
                } catch is CancellationError {
                    return
                } catch {
                    self.failure.withLock { $0 = "\(error)" }
                    self.logger.error("auth directory cannot fold the log", metadata: ["error": "\(error)"])
                    throw error
                }
                let position = self.state.withLock { $0.position }
                await self.store.waitForAppends(after: position, timeout: self.pollInterval)
            }
        }
    }

    /// Why following the log stopped (an event it cannot fold), if it did.
    public var isFailed: String? { failure.withLock { $0 } }

    /// The log position folded so far.
    public var position: Int64 { state.withLock { $0.position } }

    // MARK: Lookups

    public func user(_ id: UUID) -> UserRecord? { state.withLock { $0.users[id] } }

    public func user(email: String) -> UserRecord? {
        state.withLock { state in state.userByEmail[Normalize.email(email)].flatMap { state.users[$0] } }
    }

    public func user(username: String) -> UserRecord? {
        state.withLock { state in state.userByUsername[Normalize.username(username)].flatMap { state.users[$0] } }
    }

    public func user(provider: AuthenticationMethod, subject: String) -> UserRecord? {
        state.withLock { state in state.userByExternalIdentity["\(provider.rawValue):\(subject)"].flatMap { state.users[$0] } }
    }

    public func session(_ id: UUID) -> SessionRecord? { state.withLock { $0.sessions[id] } }

    /// The user's sessions, newest first.
    public func sessions(of userId: UUID) -> [SessionRecord] {
        state.withLock { state in
            (state.sessionsByUser[userId] ?? []).compactMap { state.sessions[$0] }.sorted { $0.startedAt > $1.startedAt }
        }
    }

    /// Every user, by registration time (administration and tests).
    public func allUsers() -> [UserRecord] {
        state.withLock { $0.users.values.sorted { ($0.registeredAt, $0.id.uuidString) < ($1.registeredAt, $1.id.uuidString) } }
    }

    func reservation(_ stream: String) -> ReservationRecord? { state.withLock { $0.reservations[stream] } }

    /// The uniqueness claims (stream, record) that name `userId`.
    func reservations(of userId: UUID) -> [(String, ReservationRecord)] {
        state.withLock { $0.reservations.filter { $0.value.userId == userId }.map { ($0.key, $0.value) } }
    }

    /// Everything folded, for comparing a rebuilt directory with the live one.
    var snapshot: State { state.withLock { $0 } }

    // MARK: Folding

    private func fold(_ envelope: EventEnvelope) async throws {
        guard let event = try AuthEvents.typeMap.decode(envelope) else {
            state.withLock { $0.position = envelope.position }
            return
        }
        // Open sealed fields before taking the lock (opening reads the key store).
        var opened: [String: String?] = [:]
        for (name, sealed) in Self.sealedFields(of: event) {
            opened[name] = try await open(sealed)
        }
        let version = envelope.streamVersion
        state.withLock { state in
            Self.apply(event, version: version, stream: envelope.streamID, opened: opened, to: &state)
            state.position = envelope.position
        }
    }

    private static func sealedFields(of event: AuthEvent) -> [(String, SealedPersonalData)] {
        switch event {
        case .userRegistered(let e):
            var fields = [("username", e.username), ("email", e.email)]
            if let licence = e.licenceNumber { fields.append(("licence", licence)) }
            return fields
        case .profileUpdated(let e):
            return [("displayName", e.displayName), ("avatarUrl", e.avatarUrl)].compactMap { name, value in value.map { (name, $0) } }
        case .passwordHashSet(let e): return [("hash", e.passwordHash)]
        case .externalIdentityLinked(let e): return [("subject", e.subject)]
        case .refreshTokenIssued(let e): return e.deviceId.map { [("device", $0)] } ?? []
        default: return []
        }
    }

    private static func apply(_ event: AuthEvent, version: Int64, stream: String, opened: [String: String?], to state: inout State) {
        func value(_ name: String) -> String? { opened[name] ?? nil }
        func updateUser(_ id: UUID, _ change: (inout UserRecord) -> Void) {
            guard var user = state.users[id] else { return }
            change(&user)
            user.version = version
            state.users[id] = user
        }
        func updateSession(_ id: UUID, _ change: (inout SessionRecord) -> Void) {
            guard var session = state.sessions[id] else { return }
            change(&session)
            session.version = version
            state.sessions[id] = session
        }
        switch event {
        case .userRegistered(let e):
            let user = UserRecord(
                id: e.userId, version: version, username: value("username"), email: value("email"), baseRole: e.role,
                grantedRoles: [], licenceNumber: value("licence"), method: e.method, registeredAt: e.registeredAt,
                status: .active, passwordHash: nil, consecutiveFailures: 0, lockedUntil: nil, resetTokenHash: nil,
                resetExpiresAt: nil, displayName: nil, avatarUrl: nil, homeCurrency: nil, language: nil, externalIdentities: [])
            state.users[e.userId] = user
            if let email = user.email { state.userByEmail[Normalize.email(email)] = e.userId }
            if let username = user.username { state.userByUsername[Normalize.username(username)] = e.userId }
        case .profileUpdated(let e):
            updateUser(e.userId) { user in
                user.displayName = value("displayName")
                user.avatarUrl = value("avatarUrl")
                user.homeCurrency = e.homeCurrency
                user.language = e.language
            }
        case .roleGranted(let e):
            updateUser(e.userId) { $0.grantedRoles.insert(e.role) }
        case .roleRevoked(let e):
            updateUser(e.userId) { $0.grantedRoles.remove(e.role) }
        case .userSuspended(let e):
            updateUser(e.userId) { $0.status = .suspended }
        case .userReactivated(let e):
            updateUser(e.userId) { $0.status = .active }
        case .userErased(let e):
            if let user = state.users[e.userId] {
                if let email = user.email { state.userByEmail.removeValue(forKey: Normalize.email(email)) }
                if let username = user.username { state.userByUsername.removeValue(forKey: Normalize.username(username)) }
                for identity in user.externalIdentities { state.userByExternalIdentity.removeValue(forKey: identity) }
            }
            updateUser(e.userId) { user in
                user.status = .erased
                user.username = nil
                user.email = nil
                user.licenceNumber = nil
                user.passwordHash = nil
                user.displayName = nil
                user.avatarUrl = nil
                user.resetTokenHash = nil
                user.resetExpiresAt = nil
                user.externalIdentities = []
            }
            for sessionID in state.sessionsByUser[e.userId] ?? [] {
                state.sessions[sessionID]?.deviceId = nil
            }
        case .passwordChanged(let e):
            updateUser(e.userId) { user in
                user.resetTokenHash = nil
                user.resetExpiresAt = nil
                user.consecutiveFailures = 0
                user.lockedUntil = nil
            }
        case .passwordHashSet(let e):
            updateUser(e.userId) { $0.passwordHash = value("hash") }
        case .loginFailed(let e):
            updateUser(e.userId) { user in
                user.consecutiveFailures = e.consecutiveFailures
                if let until = e.lockedUntil { user.lockedUntil = until }
            }
        case .loginSucceeded(let e):
            updateUser(e.userId) { user in
                user.consecutiveFailures = 0
                user.lockedUntil = nil
            }
        case .passwordResetRequested(let e):
            updateUser(e.userId) { user in
                user.resetTokenHash = e.tokenHash
                user.resetExpiresAt = e.expiresAt
            }
        case .externalIdentityLinked(let e):
            if let subject = value("subject") {
                let key = "\(e.provider.rawValue):\(subject)"
                state.userByExternalIdentity[key] = e.userId
                updateUser(e.userId) { $0.externalIdentities.insert(key) }
            } else {
                updateUser(e.userId) { _ in }
            }
        case .sessionStarted(let e):
            state.sessions[e.sessionId] = SessionRecord(
                id: e.sessionId, userId: e.userId, version: version, method: e.method, deviceId: nil, startedAt: e.startedAt,
                expiresAt: e.expiresAt, lastRefreshedAt: e.startedAt, currentTokenHash: "", previousTokenHashes: [],
                generation: 0, revocation: nil, revokedAt: nil)
            state.sessionsByUser[e.userId, default: []].insert(e.sessionId)
        case .refreshTokenIssued(let e):
            updateSession(e.sessionId) { session in
                if !session.currentTokenHash.isEmpty { session.previousTokenHashes.insert(session.currentTokenHash) }
                session.currentTokenHash = e.tokenHash
                session.generation = e.generation
                if e.deviceId != nil { session.deviceId = value("device") }
                session.lastRefreshedAt = e.issuedAt
                session.expiresAt = e.expiresAt
            }
        case .sessionRevoked(let e):
            updateSession(e.sessionId) { session in
                session.revocation = e.reason
                session.revokedAt = e.revokedAt
            }
        case .reservationClaimed(let e):
            state.reservations[stream] = ReservationRecord(kind: e.kind, userId: e.userId, claimed: true, claimedAt: e.claimedAt, version: version)
        case .reservationReleased(let e):
            state.reservations[stream] = ReservationRecord(kind: e.kind, userId: e.userId, claimed: false, claimedAt: e.releasedAt, version: version)
        }
    }
}

/// How identifiers are compared: usernames and emails are unique case-insensitively.
public enum Normalize {
    /// Lower-cased ASCII username.
    public static func username(_ value: String) -> String { value.lowercased() }
    /// Trimmed, lower-cased email (local part included: providers treat it case-insensitively in practice).
    public static func email(_ value: String) -> String { value.trimmingCharacters(in: .whitespaces).lowercased() }
}
