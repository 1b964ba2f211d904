import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import Logging
import Metrics
import ServiceKit

/// Seals and erases personal data with per-user keys (crypto-shredding), whatever the key store's backend.
public struct PersonalData: Sendable {
    public var seal: @Sendable (_ plaintext: String, _ subject: String) async throws -> SealedPersonalData
    public var open: @Sendable (SealedPersonalData) async throws -> String?
    public var erase: @Sendable (_ subject: String) async throws -> Void
    /// Whether the subject's key still exists (so an erasure still has to destroy it).
    public var hasKey: @Sendable (_ subject: String) async throws -> Bool

    public init<Keys: PersonalDataKeyStore>(cipher: PersonalDataCipher<Keys>) {
        seal = { try await cipher.seal($0, for: $1) }
        open = { try await cipher.open($0) }
        erase = { try await cipher.erase($0) }
        hasKey = { try await cipher.keys.keyForOpening($0) != nil }
    }
}

/// What a successful login, SSO or refresh hands out.
public struct IssuedTokens: Sendable, Hashable {
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date
    public var sessionId: UUID
    public var user: UserRecord
}

/// Auth's commands: each decides on state folded from the log and appends with an expected version.
///
/// Commands on one account, session or uniqueness claim go through an ``AggregateRepository`` of
/// ``AccountAggregate``, ``SessionAggregate`` or ``ReservationAggregate`` (load → pure decide → append at the loaded
/// version), each stating its retry policy: how often it loads and decides again after a concurrent change before it
/// answers 409 `conflict`. The read answers come from ``AuthDirectory``.
///
/// Appends that decide nothing on loaded state go to the store directly: a new stream, which must not exist
/// (`.noStream`: ``createUser(username:email:role:licenceNumber:method:passwordHash:externalSubject:grantAdmin:)``,
/// ``startSession(for:method:deviceId:)``), and facts recorded whatever was appended meanwhile (`.any`: `UserErased`
/// in ``erase(userId:)``, `PasswordResetRequested`, `ExternalIdentityLinked` on sign-in, `LoginSucceeded`).
public final class AuthCommands: Sendable {
    let store: any EventStore
    let accounts: AggregateRepository<AccountAggregate, AnyEventStore>
    let sessions: AggregateRepository<SessionAggregate, AnyEventStore>
    let reservations: AggregateRepository<ReservationAggregate, AnyEventStore>
    let directory: AuthDirectory
    let personalData: PersonalData
    let hasher: PasswordHasher
    let issuer: AccessTokenIssuer
    let mail: any EmailSender
    let settings: AuthSettings
    let now: @Sendable () -> Date
    let logger: Logger
    /// Failed logins of emails without a password account, locked like an account's.
    let unknownAccountLockout: UnknownAccountLockout

    public init(store: any EventStore & SnapshotStore, directory: AuthDirectory, personalData: PersonalData, hasher: PasswordHasher,
                issuer: AccessTokenIssuer, mail: any EmailSender, settings: AuthSettings = AuthSettings(),
                now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "waypoint.auth")) {
        self.store = store
        accounts = AggregateRepository(store: AnyEventStore(store))
        sessions = AggregateRepository(store: AnyEventStore(store))
        reservations = AggregateRepository(store: AnyEventStore(store))
        self.directory = directory
        self.personalData = personalData
        self.hasher = hasher
        self.issuer = issuer
        self.mail = mail
        self.settings = settings
        self.now = now
        self.logger = logger
        self.unknownAccountLockout = UnknownAccountLockout(settings: settings)
    }

    // MARK: Registration

    /// Registers a password account. Uniqueness is decided by claims in the log (`reservation-…` streams), not by the
    /// in-memory directory, so two concurrent registrations of one email cannot both succeed.
    public func register(_ request: RegisterRequest) async throws -> UserRecord {
        try await directory.sync()
        var validator = Validator()
        request.validate(into: &validator)
        if directory.user(username: request.username) != nil {
            validator.require(false, field: "username", code: "already-taken", message: "is already taken")
        }
        if directory.user(email: request.email) != nil {
            validator.require(false, field: "email", code: "already-taken", message: "is already registered")
        }
        try validator.check()
        let hash = try await hasher.hash(request.password)
        return try await createUser(
            username: request.username, email: request.email, role: request.role, licenceNumber: request.licenceNumber,
            method: .password, passwordHash: hash, externalSubject: nil)
    }

    /// Claims username and email, then appends the user's first events; gives the claims back if anything fails.
    func createUser(username: String, email: String, role: UserRole, licenceNumber: String?, method: AuthenticationMethod,
                    passwordHash: String?, externalSubject: String?, grantAdmin: Bool = false) async throws -> UserRecord {
        let userId = UUID.v4()
        let usernameClaim = ReservationStream.name(.username, Normalize.username(username))
        let emailClaim = ReservationStream.name(.email, Normalize.email(email))
        guard try await claim(usernameClaim, kind: .username, for: userId) else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "username", code: "already-taken", message: "is already taken")])
        }
        guard try await claim(emailClaim, kind: .email, for: userId) else {
            try await release(usernameClaim, kind: .username, for: userId)
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "email", code: "already-taken", message: "is already registered")])
        }
        do {
            let subject = userId.uuidString.lowercased()
            let at = now()
            var events: [NewEvent] = [try UserRegistered(
                userId: userId, username: try await personalData.seal(username, subject),
                email: try await personalData.seal(Normalize.email(email), subject), role: role,
                licenceNumber: try await licenceNumber.asyncMap { try await personalData.seal($0, subject) },
                method: method, registeredAt: at).newEvent()]
            if let passwordHash {
                events.append(try PasswordHashSet(userId: userId, passwordHash: try await personalData.seal(passwordHash, subject), setAt: at).newEvent())
            }
            if let externalSubject {
                events.append(try ExternalIdentityLinked(
                    userId: userId, provider: method, subject: try await personalData.seal(externalSubject, subject), linkedAt: at).newEvent())
            }
            if grantAdmin {
                events.append(try RoleGranted(userId: userId, role: .admin, grantedBy: nil, grantedAt: at).newEvent())
            }
            _ = try await store.append(events, to: AuthEvents.userStream(userId), expectedVersion: .noStream)
        } catch {
            try? await release(usernameClaim, kind: .username, for: userId)
            try? await release(emailClaim, kind: .email, for: userId)
            throw error
        }
        try await directory.sync()
        guard let user = directory.user(userId) else { throw AuthError.conflict("the new account is not visible yet") }
        logger.info("user registered", metadata: ["user.id": "\(userId.uuidString.lowercased())", "user.role": "\(role.rawValue)", "auth.method": "\(method.rawValue)"])
        return user
    }

    /// Claims a unique value for `userId`; `false` when another live account holds it. A claim left by a registration
    /// that crashed before its user existed is taken over after a minute. Retry policy: three attempts, then `false`.
    private func claim(_ stream: String, kind: ReservationKind, for userId: UUID) async throws -> Bool {
        do {
            return try await reservations.execute(on: stream, retries: 2) { loaded in
                try await directory.sync()
                let holderRegistered = loaded.state.holder.map { directory.user($0) != nil } ?? false
                let events = ReservationAggregate.decide(
                    .claim(kind, for: userId, at: now(), holderRegistered: holderRegistered, orphanedAfter: 60), loaded.state)
                return (events, !events.isEmpty)
            }
        } catch let error as EventStoreError where error.isConcurrentChange {
            return false
        }
    }

    /// Gives a claim of `userId` back. Retry policy: none (a concurrent change is thrown).
    func release(_ stream: String, kind: ReservationKind, for userId: UUID) async throws {
        try await reservations.execute(.release(kind, by: userId, at: now()), on: stream)
    }

    // MARK: Login, refresh, logout

    /// Email + password login. Unknown email, no password and wrong password answer the same, after the same bcrypt work,
    /// and lock alike: an email without a password account is counted by ``UnknownAccountLockout`` as an account is by
    /// its `LoginFailed` events (same threshold, duration, status and `Retry-After`).
    public func login(email: String, password: String, deviceId: String) async throws -> IssuedTokens {
        try await directory.sync()
        guard let user = directory.user(email: email), user.status != .erased, let hash = user.passwordHash else {
            let at = now()
            if let until = unknownAccountLockout.lockedUntil(email, at: at) {
                AuthMetrics.login("locked")
                throw AuthError.accountLocked(until: until, now: at)
            }
            await hasher.verifyAgainstDummy(password)
            unknownAccountLockout.recordFailure(email, at: now())
            AuthMetrics.login("invalid-credentials")
            throw AuthError.invalidCredentials
        }
        let at = now()
        if user.isLocked(at: at), let until = user.lockedUntil {
            AuthMetrics.login("locked")
            throw AuthError.accountLocked(until: until, now: at)
        }
        guard await hasher.verify(password, against: hash) else {
            try await recordFailedLogin(user.id)
            AuthMetrics.login("invalid-credentials")
            throw AuthError.invalidCredentials
        }
        guard user.status == .active else {
            AuthMetrics.login("suspended")
            throw AuthError.accountSuspended
        }
        let tokens = try await startSession(for: user, method: .password, deviceId: deviceId)
        AuthMetrics.login("success")
        return tokens
    }

    /// Counts a wrong password against the account. Retry policy: five attempts, then the failure goes unrecorded.
    private func recordFailedLogin(_ userId: UUID) async throws {
        let outcome: AggregateRepository<AccountAggregate, AnyEventStore>.Outcome
        do {
            outcome = try await accounts.execute(
                .recordFailedLogin(at: now(), threshold: settings.lockoutThreshold, lockFor: settings.lockoutDuration.timeInterval),
                on: AuthEvents.userStream(userId), retries: 4)
        } catch let error as EventStoreError where error.isConcurrentChange {
            return
        }
        if case .loginFailed(let failed)? = outcome.events.first, let lockedUntil = failed.lockedUntil {
            Counter(label: "waypoint_auth_lockouts_total").increment()
            logger.notice("account locked after failed logins", metadata: ["user.id": "\(userId.uuidString.lowercased())", "locked.until": "\(lockedUntil)"])
        }
    }

    /// Starts a session: session events, then (only if there were failures) the reset of the failure count, then the
    /// session cap, then tokens.
    func startSession(for user: UserRecord, method: AuthenticationMethod, deviceId: String) async throws -> IssuedTokens {
        let sessionId = UUID.v4()
        let token = SecretToken.generate(for: sessionId)
        let at = now()
        let expiresAt = at.addingTimeInterval(settings.refreshTokenLifetime.timeInterval)
        let subject = user.id.uuidString.lowercased()
        let sealedDevice = try await unlessErased(.invalidCredentials) { try await personalData.seal(deviceId, subject) }
        _ = try await store.append([
            try SessionStarted(sessionId: sessionId, userId: user.id, method: method, startedAt: at, expiresAt: expiresAt).newEvent(),
            try RefreshTokenIssued(sessionId: sessionId, userId: user.id, tokenHash: token.hash, generation: 1,
                                   deviceId: sealedDevice, issuedAt: at, expiresAt: expiresAt).newEvent(),
        ], to: AuthEvents.sessionStream(sessionId), expectedVersion: .noStream)
        if user.consecutiveFailures > 0 || user.lockedUntil != nil {
            // Any version: a concurrent failure recorded meanwhile is superseded by this success.
            _ = try await store.append([try LoginSucceeded(userId: user.id, sessionId: sessionId, succeededAt: at).newEvent()],
                                       to: AuthEvents.userStream(user.id), expectedVersion: .any)
        }
        try await directory.sync()
        guard let current = directory.user(user.id), current.status == .active else {
            // Suspended or erased while the session started: the revocation of every session may have missed this one.
            let suspended = directory.user(user.id)?.status == .suspended
            try await revoke(sessionId, reason: suspended ? .userSuspended : .userErased)
            throw suspended ? AuthError.accountSuspended : AuthError.invalidCredentials
        }
        let live = directory.sessions(of: user.id).filter { $0.isLive(at: at) }
        if live.count > settings.maximumSessionsPerUser {
            for oldest in live.sorted(by: { $0.startedAt < $1.startedAt }).prefix(live.count - settings.maximumSessionsPerUser)
            where oldest.id != sessionId {
                try await revoke(oldest.id, reason: .sessionLimit)
            }
        }
        let access = try await issuer.issue(subject: subject, role: user.effectiveRole, sessionId: sessionId.uuidString.lowercased())
        return IssuedTokens(accessToken: access.token, accessTokenExpiresAt: access.expiresAt, refreshToken: token.encoded,
                            refreshTokenExpiresAt: expiresAt, sessionId: sessionId, user: current)
    }

    /// Runs `body` (which seals something of a user), turning `PersonalDataError.subjectErased` — the user was erased
    /// meanwhile and nothing of theirs can be sealed any more — into `refusal`, the answer a request after the erasure
    /// gets, instead of a 500.
    func unlessErased<T>(_ refusal: AuthError, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch PersonalDataError.subjectErased {
            throw refusal
        }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}


/// auth's own metrics (on top of ServiceKit's HTTP metrics).
enum AuthMetrics {
    /// `waypoint_auth_logins_total{outcome}`: success, invalid-credentials, locked, suspended.
    static func login(_ outcome: String) {
        Counter(label: "waypoint_auth_logins_total", dimensions: [("outcome", outcome)]).increment()
    }
}
