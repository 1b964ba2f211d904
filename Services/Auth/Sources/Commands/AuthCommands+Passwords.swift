import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit

extension AuthCommands {
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

    /// Records the new password (`PasswordChanged`, `PasswordHashSet`) at the account version the caller's checks were
    /// made on (`user.version`). Retry policy: none — any change since those checks is 409 `conflict`.
    private func setPassword(_ user: UserRecord, to password: String, reason: PasswordChangeReason) async throws {
        let hash = try await hasher.hash(password)
        let at = now()
        let sealedHash = try await unlessErased(.notFound("no such user")) { try await personalData.seal(hash, user.id.uuidString.lowercased()) }
        try await onAccount {
            try await accounts.execute(on: AuthEvents.userStream(user.id)) { loaded in
                guard loaded.version == user.version else { throw AuthError.conflict("the account changed concurrently; retry") }
                return ([.passwordChanged(PasswordChanged(userId: user.id, reason: reason, changedAt: at)),
                         .passwordHashSet(PasswordHashSet(userId: user.id, passwordHash: sealedHash, setAt: at))], ())
            }
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
