import Foundation
import HTTPTypes
import ServiceKit

/// Domain refusals of auth's commands, each with its problem+json answer.
enum AuthError: Error, Sendable, Hashable, ProblemConvertible {
    /// Unknown email, wrong password, or an account without a password: one answer for all (no enumeration).
    case invalidCredentials
    /// Too many failed logins.
    case accountLocked(until: Date, now: Date)
    /// An administrator suspended the account.
    case accountSuspended
    /// The refresh token is unknown, expired, revoked or presented from another device.
    case invalidRefreshToken
    /// A refresh token was presented a second time: the session was revoked.
    case refreshTokenReused
    /// A password-reset token that is unknown, used or expired.
    case invalidResetToken
    /// Change password with a wrong current password.
    case wrongCurrentPassword
    /// Not found (or not the caller's).
    case notFound(String)
    /// A concurrent change won; retrying the request is safe.
    case conflict(String)

    /// The answer to the refusal.
    var problem: Problem {
        switch self {
        case .invalidCredentials:
            Problem(status: .unauthorized, code: "invalid-credentials", title: "Invalid credentials",
                    detail: "The email or password is not correct.")
        case let .accountLocked(until, now):
            {
                // Whole seconds, rounded up, ignoring the last millisecond: an account's lock end comes back from its
                // log rounded to the microsecond, so without the tolerance it could answer one second more than the
                // same lock of an email without an account (UnknownAccountLockout) and tell the two apart.
                var problem = Problem.tooManyRequests(
                    retryAfter: .seconds(max(1, (until.timeIntervalSince(now) - 0.001).rounded(.up))),
                    detail: "Too many failed logins; the account is locked until \(RFC3339.string(until)).")
                problem.code = "account-locked"
                problem.title = "Account locked"
                return problem
            }()
        case .accountSuspended:
            Problem.forbidden("This account is suspended.", code: "account-suspended")
        case .invalidRefreshToken:
            Problem(status: .unauthorized, code: "invalid-refresh-token", title: "Invalid refresh token",
                    detail: "The refresh token is unknown, expired or revoked.")
        case .refreshTokenReused:
            Problem(status: .unauthorized, code: "refresh-token-reused", title: "Refresh token reused",
                    detail: "This refresh token was already used; the session has been revoked. Log in again.")
        case .invalidResetToken:
            Problem(status: .unprocessableContent, code: "invalid-reset-token", title: "Invalid reset token",
                    detail: "The password-reset token is unknown, used or expired.",
                    fieldErrors: [FieldError(field: "token", code: "invalid", message: "unknown, used or expired")])
        case .wrongCurrentPassword:
            Problem.forbidden("The current password is not correct.", code: "wrong-password")
        case .notFound(let detail):
            Problem.notFound(detail)
        case .conflict(let detail):
            Problem.conflict(detail)
        }
    }
}

/// RFC 3339 timestamps for messages.
enum RFC3339 {
    static func string(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
