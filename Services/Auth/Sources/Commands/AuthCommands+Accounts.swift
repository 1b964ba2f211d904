import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// `PATCH /v1/users/me`: JSON merge-patch semantics — an absent field stays, `null` clears, a value sets.
public struct ProfilePatch: Decodable, Sendable, ValidatableRequest {
    public enum Field<Value: Sendable & Hashable>: Sendable, Hashable {
        case unchanged
        case cleared
        case set(Value)
    }

    public var displayName: Field<String> = .unchanged
    public var avatarUrl: Field<String> = .unchanged
    public var homeCurrency: Field<String> = .unchanged
    public var language: Field<String> = .unchanged

    enum CodingKeys: String, CodingKey { case displayName, avatarUrl, homeCurrency, language }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field(_ key: CodingKeys) throws -> Field<String> {
            guard container.contains(key) else { return .unchanged }
            if try container.decodeNil(forKey: key) { return .cleared }
            return .set(try container.decode(String.self, forKey: key))
        }
        displayName = try field(.displayName)
        avatarUrl = try field(.avatarUrl)
        homeCurrency = try field(.homeCurrency)
        language = try field(.language)
    }

    public func validate(into validator: inout Validator) {
        if case .set(let name) = displayName {
            validator.length(name.trimmingCharacters(in: .whitespaces), field: "displayName", min: 1, max: 60)
            validator.require(!name.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) }),
                              field: "displayName", code: "invalid-characters", message: "must be one line of text")
        }
        if case .set(let url) = avatarUrl {
            let parsed = URL(string: url)
            validator.require(url.utf8.count <= 2_048 && parsed?.scheme?.lowercased() == "https" && !(parsed?.host ?? "").isEmpty,
                              field: "avatarUrl", code: "invalid-url", message: "must be an absolute https URL of at most 2048 characters")
        }
        if case .set(let code) = homeCurrency {
            validator.require(CurrencyCode(code) != nil, field: "homeCurrency", code: "unknown-currency",
                              message: "must be an ISO 4217 currency code such as EUR")
        }
        if case .set(let tag) = language {
            validator.languageTag(tag, field: "language")
        }
    }
}

extension AuthCommands {
    // MARK: Profile

    /// Applies a profile patch; appends `UserProfileUpdated` with the whole new profile. Retry policy: three attempts,
    /// then 409.
    public func updateProfile(userId: UUID, patch: ProfilePatch) async throws -> UserRecord {
        try patch.validate()
        try await onAccount {
            try await accounts.execute(on: AuthEvents.userStream(userId), retries: 2) { loaded in
                guard loaded.state.isOpen else { throw AuthError.notFound("no such user") }
                let subject = userId.uuidString.lowercased()
                let current = Profile(displayName: try await loaded.state.displayName.asyncMap { try await personalData.open($0) } ?? nil,
                                      avatarUrl: try await loaded.state.avatarUrl.asyncMap { try await personalData.open($0) } ?? nil,
                                      homeCurrency: loaded.state.homeCurrency, language: loaded.state.language)
                let profile = patch.applied(to: current)
                guard profile != current else { return ([], ()) }  // Nothing changes: nothing to record or publish.
                let updated = try await unlessErased(.notFound("no such user")) {
                    UserProfileUpdated(
                        userId: userId,
                        displayName: try await profile.displayName.asyncMap { try await personalData.seal($0, subject) },
                        avatarUrl: try await profile.avatarUrl.asyncMap { try await personalData.seal($0, subject) },
                        homeCurrency: profile.homeCurrency, language: profile.language, updatedAt: now())
                }
                return (try AccountAggregate.decide(.updateProfile(updated), loaded.state), ())
            }
        }
        return try await currentUser(userId)
    }

    /// Runs an account command; a concurrent change left after its retries is 409 `conflict`.
    func onAccount<T>(_ command: () async throws -> T) async throws -> T {
        do {
            return try await command()
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw AuthError.conflict("the account changed concurrently; retry")
        }
    }

    /// The user as the directory has folded them, after a sync.
    func currentUser(_ userId: UUID) async throws -> UserRecord {
        try await directory.sync()
        guard let user = directory.user(userId) else { throw AuthError.notFound("no such user") }
        return user
    }

    // MARK: Erasure

    /// Forgets a person: `UserErased` is appended first (so the fact survives a crash), then every session is revoked,
    /// the username and email claims are given back, and finally the user's key is destroyed — after which no read
    /// and no rebuild can open their sealed fields. Erasing an erased user finishes what an interrupted erasure left
    /// (``resumeErasures()`` does that for every such user at start-up).
    public func erase(userId: UUID) async throws {
        try await directory.sync()
        guard let user = directory.user(userId) else { throw AuthError.notFound("no such user") }
        if user.status != .erased {
            let event = try UserErased(userId: userId, erasedAt: now()).newEvent()
            _ = try await store.append([event], to: AuthEvents.userStream(userId), expectedVersion: .any)
            try await directory.sync()
        }
        try await finishErasure(userId)
        logger.info("user erased", metadata: ["user.id": "\(userId.uuidString.lowercased())"])
    }

    /// Completes every erasure whose key still exists: a crash between `UserErased` and the key's destruction.
    public func resumeErasures() async throws {
        try await directory.sync()
        for user in directory.allUsers() where user.status == .erased {
            if try await personalData.hasKey(user.id.uuidString.lowercased()) {
                logger.notice("finishing an interrupted erasure", metadata: ["user.id": "\(user.id.uuidString.lowercased())"])
                try await finishErasure(user.id)
            }
        }
    }

    private func finishErasure(_ userId: UUID) async throws {
        try await revokeAll(of: userId, reason: .userErased)
        for (stream, claim) in directory.reservations(of: userId) where claim.claimed {
            do {
                try await release(stream, kind: claim.kind, for: userId)
            } catch let error as EventStoreError where error.isConcurrentChange {
                continue  // Claimed meanwhile by someone else: nothing of ours to give back.
            }
        }
        try await personalData.erase(userId.uuidString.lowercased())
        try await directory.sync()
    }

    // MARK: Administration

    /// Grants `moderator` (routes) or `admin` (operator command) to a user.
    public func grant(_ role: UserRole, to userId: UUID, by admin: UUID?) async throws -> UserRecord {
        try await changeUser(userId, .grant(role, by: admin, at: now()))
    }

    /// Revokes a granted role.
    public func revokeRole(_ role: UserRole, from userId: UUID, by admin: UUID?) async throws -> UserRecord {
        try await changeUser(userId, .revokeRole(role, by: admin, at: now()))
    }

    /// Suspends a user: they cannot log in or refresh, and every session is revoked.
    public func suspend(_ userId: UUID, by admin: UUID?) async throws -> UserRecord {
        let user = try await changeUser(userId, .suspend(by: admin, at: now()))
        try await revokeAll(of: userId, reason: .userSuspended)
        return user
    }

    /// Lets a suspended user log in again.
    public func reactivate(_ userId: UUID, by admin: UUID?) async throws -> UserRecord {
        try await changeUser(userId, .reactivate(by: admin, at: now()))
    }

    /// An administrator's command on an account. Retry policy: three attempts, then 409.
    private func changeUser(_ userId: UUID, _ command: AccountAggregate.Command) async throws -> UserRecord {
        _ = try await onAccount { try await accounts.execute(command, on: AuthEvents.userStream(userId), retries: 2) }
        return try await currentUser(userId)
    }

    /// The operator's `create-admin`: registers an administrator, or grants `admin` to the existing account of `email`.
    public func createAdmin(username: String, email: String, password: String) async throws -> UserRecord {
        try await directory.sync()
        if let existing = directory.user(email: email) {
            return try await grant(.admin, to: existing.id, by: nil)
        }
        var validator = Validator()
        RegisterRequest(username: username, email: email, password: password, role: .traveller).validate(into: &validator)
        try validator.check()
        let hash = try await hasher.hash(password)
        return try await createUser(username: username, email: email, role: .traveller, licenceNumber: nil, method: .password,
                                    passwordHash: hash, externalSubject: nil, grantAdmin: true)
    }

    // MARK: Single sign-on

    /// Logs in with a verified OpenID Connect identity: the account linked to it, else the account with the same
    /// verified email (which gets linked), else a new account (`traveller` unless `role` says `guide`).
    public func signIn(with identity: OIDCIdentity, provider: AuthenticationMethod, role: UserRole?, deviceId: String) async throws
        -> (tokens: IssuedTokens, created: Bool) {
        try await directory.sync()
        if let user = directory.user(provider: provider, subject: identity.subject) {
            guard user.status == .active else { throw AuthError.accountSuspended }
            return (try await startSession(for: user, method: provider, deviceId: deviceId), false)
        }
        guard let email = identity.email, identity.emailVerified, EmailRules.isValid(email) else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "idToken", code: "email-unverified",
                                                                 message: "the identity provider did not vouch for an email address")])
        }
        if let user = directory.user(email: email) {
            guard user.status == .active else { throw AuthError.accountSuspended }
            let event = try ExternalIdentityLinked(
                userId: user.id, provider: provider,
                subject: try await personalData.seal(identity.subject, user.id.uuidString.lowercased()), linkedAt: now()).newEvent()
            _ = try await store.append([event], to: AuthEvents.userStream(user.id), expectedVersion: .any)
            try await directory.sync()
            return (try await startSession(for: directory.user(user.id) ?? user, method: provider, deviceId: deviceId), false)
        }
        let chosenRole = role ?? .traveller
        guard [.traveller, .guide].contains(chosenRole) else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "role", code: "not-allowed", message: "must be traveller or guide")])
        }
        let user = try await createUser(
            username: try availableUsername(from: identity), email: email, role: chosenRole, licenceNumber: nil,
            method: provider, passwordHash: nil, externalSubject: identity.subject)
        return (try await startSession(for: user, method: provider, deviceId: deviceId), true)
    }

    /// A free username derived from the identity's name or email: its letters and digits, then digits if taken.
    private func availableUsername(from identity: OIDCIdentity) throws -> String {
        let source = identity.name ?? identity.email?.split(separator: "@").first.map(String.init) ?? "user"
        var base = String(source.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(14))
        if base.count < 3 { base += "user" }
        if directory.user(username: base) == nil { return base }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let candidate = base + String(Int.random(in: 100_000...999_999, using: &generator))
            if directory.user(username: candidate) == nil { return candidate }
        }
        throw AuthError.conflict("no free username; retry")
    }
}
