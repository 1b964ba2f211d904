import AuthInfrastructure
import Contracts
import Foundation
import ServiceKit

// The request bodies of auth's routes (`AuthRoutes`); the commands' own bodies (`RegisterRequest`, `ProfilePatch`) live
// with the commands.

/// `POST /v1/auth/login`.
struct LoginRequest: Decodable, Sendable, ValidatableRequest {
    var email: String
    var password: String
    var deviceId: String

    func validate(into validator: inout Validator) {
        validator.length(email, field: "email", min: 1, max: 254)
        validator.length(password, field: "password", min: 1, max: 1_024)
        PasswordRules.validateCharacters(password, field: "password", into: &validator)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

/// `POST /v1/auth/refresh`.
struct RefreshRequest: Decodable, Sendable, ValidatableRequest {
    var refreshToken: String
    /// Must be the device the session was started on: a refresh token is bound to it.
    var deviceId: String

    func validate(into validator: inout Validator) {
        validator.length(refreshToken, field: "refreshToken", min: 1, max: 512)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

/// `POST /v1/auth/password-reset`.
struct PasswordResetRequest: Decodable, Sendable, ValidatableRequest {
    var email: String

    func validate(into validator: inout Validator) {
        validator.length(email, field: "email", min: 1, max: 254)
    }
}

/// `POST /v1/auth/password-reset/confirm`.
struct PasswordResetConfirmation: Decodable, Sendable, ValidatableRequest {
    var token: String
    var newPassword: String

    func validate(into validator: inout Validator) {
        validator.length(token, field: "token", min: 1, max: 512)
        validator.length(newPassword, field: "newPassword", min: 1, max: 1_024)
        PasswordRules.validateCharacters(newPassword, field: "newPassword", into: &validator)
    }
}

/// `POST /v1/auth/password`.
struct ChangePasswordRequest: Decodable, Sendable, ValidatableRequest {
    var currentPassword: String
    var newPassword: String

    func validate(into validator: inout Validator) {
        validator.length(currentPassword, field: "currentPassword", min: 1, max: 1_024)
        validator.length(newPassword, field: "newPassword", min: 1, max: 1_024)
        PasswordRules.validateCharacters(currentPassword, field: "currentPassword", into: &validator)
        PasswordRules.validateCharacters(newPassword, field: "newPassword", into: &validator)
    }
}

/// `POST /v1/auth/sso/{provider}`.
struct SSORequest: Decodable, Sendable, ValidatableRequest {
    var idToken: String
    var deviceId: String
    var role: UserRole?

    func validate(into validator: inout Validator) {
        validator.length(idToken, field: "idToken", min: 1, max: 16_384)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

/// The rules of a `deviceId`: 1–200 printable characters.
enum DeviceRules {
    static func validate(_ deviceId: String, into validator: inout Validator) {
        validator.length(deviceId, field: "deviceId", min: 1, max: 200)
        validator.require(!deviceId.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.value < 0x20 } }),
                          field: "deviceId", code: "invalid-characters", message: "must be printable text")
    }
}
