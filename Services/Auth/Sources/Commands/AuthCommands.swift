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
public final class AuthCommands: Sendable {
    let store: any EventStore
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

    public init(store: any EventStore, directory: AuthDirectory, personalData: PersonalData, hasher: PasswordHasher,
                issuer: AccessTokenIssuer, mail: any EmailSender, settings: AuthSettings = AuthSettings(),
                now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "waypoint.auth")) {
        self.store = store
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
    /// that crashed before its user existed is taken over after a minute.
    private func claim(_ stream: String, kind: ReservationKind, for userId: UUID) async throws -> Bool {
        for _ in 0..<3 {
            try await directory.sync()
            let existing = directory.reservation(stream)
            if let existing, existing.claimed {
                let orphaned = directory.user(existing.userId) == nil && now().timeIntervalSince(existing.claimedAt) > 60
                guard orphaned else { return false }
            }
            let event = try ReservationClaimed(kind: kind, userId: userId, claimedAt: now()).newEvent()
            do {
                _ = try await store.append([event], to: stream, expectedVersion: existing.map { .exact($0.version) } ?? .noStream)
                return true
            } catch EventStoreError.wrongExpectedVersion {
                continue
            }
        }
        return false
    }

    private func release(_ stream: String, kind: ReservationKind, for userId: UUID) async throws {
        try await directory.sync()
        guard let existing = directory.reservation(stream), existing.claimed, existing.userId == userId else { return }
        let event = try ReservationReleased(kind: kind, userId: userId, releasedAt: now()).newEvent()
        _ = try await store.append([event], to: stream, expectedVersion: .exact(existing.version))
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

    private func recordFailedLogin(_ userId: UUID) async throws {
        for _ in 0..<5 {
            try await directory.sync()
            guard let user = directory.user(userId) else { return }
            let at = now()
            // A lock that has run out starts a fresh count.
            let previous = user.lockedUntil.map { $0 <= at } ?? false ? 0 : user.consecutiveFailures
            let failures = previous + 1
            let lockedUntil = failures >= settings.lockoutThreshold ? at.addingTimeInterval(settings.lockoutDuration.timeInterval) : nil
            let event = try LoginFailed(userId: userId, failedAt: at, consecutiveFailures: failures, lockedUntil: lockedUntil).newEvent()
            do {
                _ = try await store.append([event], to: AuthEvents.userStream(userId), expectedVersion: .exact(user.version))
                if let lockedUntil {
                    Counter(label: "waypoint_auth_lockouts_total").increment()
                    logger.notice("account locked after failed logins", metadata: ["user.id": "\(userId.uuidString.lowercased())", "locked.until": "\(lockedUntil)"])
                }
                return
            } catch EventStoreError.wrongExpectedVersion {
                continue
            }
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

    /// Rotates a refresh token. A token presented a second time revokes its whole session (reuse detection): two
    /// concurrent uses of one token race on the session's version, and the loser is, correctly, a reuse.
    public func refresh(token presented: String, deviceId: String) async throws -> IssuedTokens {
        guard let token = SecretToken(presented: presented) else { throw AuthError.invalidRefreshToken }
        for _ in 0..<3 {
            try await directory.sync()
            guard let session = directory.session(token.owner) else { throw AuthError.invalidRefreshToken }
            let hash = token.hash
            if session.previousTokenHashes.contains(hash) {
                if session.revocation == nil {
                    Counter(label: "waypoint_auth_refresh_token_reuse_total").increment()
                    try await revoke(session.id, reason: .refreshTokenReuse)
                    logger.warning("refresh token reused; session revoked", metadata: ["session.id": "\(session.id)", "user.id": "\(session.userId)"])
                }
                throw AuthError.refreshTokenReused
            }
            let at = now()
            guard ConstantTime.equals(hash, session.currentTokenHash), session.isLive(at: at) else { throw AuthError.invalidRefreshToken }
            guard let bound = session.deviceId, ConstantTime.equals(deviceId, bound) else { throw AuthError.invalidRefreshToken }
            guard let user = directory.user(session.userId), user.status == .active else { throw AuthError.invalidRefreshToken }
            let next = SecretToken.generate(for: session.id)
            let expiresAt = at.addingTimeInterval(settings.refreshTokenLifetime.timeInterval)
            let event = try RefreshTokenIssued(
                sessionId: session.id, userId: user.id, tokenHash: next.hash, generation: session.generation + 1,
                deviceId: nil, issuedAt: at, expiresAt: expiresAt).newEvent()
            do {
                _ = try await store.append([event], to: AuthEvents.sessionStream(session.id), expectedVersion: .exact(session.version))
            } catch EventStoreError.wrongExpectedVersion {
                continue
            }
            let access = try await issuer.issue(subject: user.id.uuidString.lowercased(), role: user.effectiveRole,
                                                sessionId: session.id.uuidString.lowercased())
            return IssuedTokens(accessToken: access.token, accessTokenExpiresAt: access.expiresAt, refreshToken: next.encoded,
                                refreshTokenExpiresAt: expiresAt, sessionId: session.id, user: user)
        }
        throw AuthError.conflict("the session changed concurrently; retry")
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

    /// Revokes a session (idempotent: a revoked session stays revoked with its first reason).
    public func revoke(_ sessionId: UUID, reason: SessionRevocationReason) async throws {
        for _ in 0..<5 {
            try await directory.sync()
            guard let session = directory.session(sessionId) else { throw AuthError.notFound("no such session") }
            guard session.revocation == nil else { return }
            let event = try SessionRevoked(sessionId: sessionId, userId: session.userId, reason: reason, revokedAt: now()).newEvent()
            do {
                _ = try await store.append([event], to: AuthEvents.sessionStream(sessionId), expectedVersion: .exact(session.version))
                try await directory.sync()
                return
            } catch EventStoreError.wrongExpectedVersion {
                continue
            }
        }
        throw AuthError.conflict("the session changed concurrently; retry")
    }

    /// Revokes a session of `userId` (404 for anyone else's).
    public func revoke(_ sessionId: UUID, ownedBy userId: UUID, reason: SessionRevocationReason) async throws {
        try await directory.sync()
        guard let session = directory.session(sessionId), session.userId == userId else { throw AuthError.notFound("no such session") }
        try await revoke(sessionId, reason: reason)
    }

    /// Revokes every live session of a user, except `keeping`.
    func revokeAll(of userId: UUID, reason: SessionRevocationReason, keeping: UUID? = nil) async throws {
        try await directory.sync()
        for session in directory.sessions(of: userId) where session.revocation == nil && session.id != keeping {
            try await revoke(session.id, reason: reason)
        }
    }

    // MARK: Passwords

    /// Changes the password of a logged-in user; other sessions end.
    public func changePassword(userId: UUID, currentSessionId: UUID?, current: String, new: String) async throws {
        try await directory.sync()
        guard let user = directory.user(userId), user.status == .active else { throw AuthError.notFound("no such user") }
        guard let hash = user.passwordHash, await hasher.verify(current, against: hash) else { throw AuthError.wrongCurrentPassword }
        try PasswordRules.check(new, field: "newPassword", username: user.username, email: user.email)
        try await setPassword(user, to: new, reason: .changed)
        try await revokeAll(of: userId, reason: .passwordChanged, keeping: currentSessionId)
    }

    private func setPassword(_ user: UserRecord, to password: String, reason: PasswordChangeReason) async throws {
        let hash = try await hasher.hash(password)
        let at = now()
        let sealedHash = try await unlessErased(.notFound("no such user")) { try await personalData.seal(hash, user.id.uuidString.lowercased()) }
        let events = [
            try PasswordChanged(userId: user.id, reason: reason, changedAt: at).newEvent(),
            try PasswordHashSet(userId: user.id, passwordHash: sealedHash, setAt: at).newEvent(),
        ]
        do {
            _ = try await store.append(events, to: AuthEvents.userStream(user.id), expectedVersion: .exact(user.version))
        } catch EventStoreError.wrongExpectedVersion {
            throw AuthError.conflict("the account changed concurrently; retry")
        }
        try await directory.sync()
    }

    /// Sends a single-use reset token when the email belongs to an active account; silent otherwise. The token goes
    /// only into the mail: the log keeps its SHA-256, and nothing logs it.
    public func requestPasswordReset(email: String) async {
        do {
            try await directory.sync()
            guard let user = directory.user(email: email), user.status == .active, let address = user.email else { return }
            let token = SecretToken.generate(for: user.id)
            let at = now()
            let expiresAt = at.addingTimeInterval(settings.resetTokenLifetime.timeInterval)
            let event = try PasswordResetRequested(userId: user.id, tokenHash: token.hash, requestedAt: at, expiresAt: expiresAt).newEvent()
            _ = try await store.append([event], to: AuthEvents.userStream(user.id), expectedVersion: .any)
            try await directory.sync()
            let minutes = Int(settings.resetTokenLifetime.timeInterval / 60)
            try await mail.send(EmailMessage(
                to: address, subject: "Reset your Waypoint password",
                textBody: """
                Hello \(user.username ?? ""),

                Someone (hopefully you) asked to reset the password of your Waypoint account.
                Open this link within \(minutes) minutes to choose a new password:

                \(settings.publicBaseURL)/reset-password?token=\(token.encoded)

                Or send this token to POST /v1/auth/password-reset/confirm:

                \(token.encoded)

                If you did not ask for this, ignore this mail; your password stays as it is.
                """))
            logger.info("password reset mail sent", metadata: ["user.id": "\(user.id)"])
        } catch {
            logger.error("password reset request failed", metadata: ["error": "\(error)"])
        }
    }

    /// Sets a new password with a reset token (single use, 30 minutes); every session ends.
    public func confirmPasswordReset(token presented: String, newPassword: String) async throws {
        guard let token = SecretToken(presented: presented) else { throw AuthError.invalidResetToken }
        try await directory.sync()
        guard let user = directory.user(token.owner), user.status == .active, let stored = user.resetTokenHash,
              let expiresAt = user.resetExpiresAt, expiresAt > now(), ConstantTime.equals(token.hash, stored)
        else { throw AuthError.invalidResetToken }
        try PasswordRules.check(newPassword, field: "newPassword", username: user.username, email: user.email)
        try await setPassword(user, to: newPassword, reason: .reset)
        try await revokeAll(of: user.id, reason: .passwordReset)
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
