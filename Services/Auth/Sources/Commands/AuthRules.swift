import Contracts
import Foundation
import ServiceKit

/// `POST /v1/auth/register`.
public struct RegisterRequest: Decodable, Sendable, ValidatableRequest {
    public var username: String
    public var email: String
    public var password: String
    public var role: UserRole
    public var licenceNumber: String?

    public init(username: String, email: String, password: String, role: UserRole, licenceNumber: String? = nil) {
        self.username = username
        self.email = email
        self.password = password
        self.role = role
        self.licenceNumber = licenceNumber
    }

    public func validate(into validator: inout Validator) {
        UsernameRules.validate(username, into: &validator)
        EmailRules.validate(email, field: "email", into: &validator)
        PasswordRules.validate(password, field: "password", username: username, email: email, into: &validator)
        validator.require([.traveller, .guide].contains(role), field: "role", code: "not-allowed",
                          message: "must be traveller or guide")
        if let licenceNumber {
            validator.require(role == .guide, field: "licenceNumber", code: "not-allowed", message: "only guides have a licence number")
            validator.length(licenceNumber, field: "licenceNumber", min: 1, max: 64)
            validator.require(!licenceNumber.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }),
                              field: "licenceNumber", code: "invalid-characters", message: "must be one line of printable text")
        }
    }
}

/// Usernames: 3–20 ASCII letters and digits, unique case-insensitively.
enum UsernameRules {
    static func validate(_ username: String, into validator: inout Validator) {
        validator.length(username, field: "username", min: 3, max: 20)
        validator.require(username.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, field: "username",
                          code: "invalid-characters", message: "may contain only ASCII letters and digits")
    }
}

/// A practical RFC 5322 address: `local@domain`, the local part dot-atom characters, the domain dot-separated labels of
/// letters, digits and hyphens with a top-level label of at least two letters; 254 characters at most. No quoted local
/// parts, comments or IP literals: real sign-ups do not use them, and they are where parsers disagree.
enum EmailRules {
    private static let localCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.")

    static func isValid(_ email: String) -> Bool {
        guard email.utf8.count <= 254 else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0], domain = parts[1]
        guard (1...64).contains(local.utf8.count), local.allSatisfy(localCharacters.contains),
              !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.utf8.count <= 253 else { return false }
        for label in labels {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { return false }
        }
        let top = labels.last!
        return top.count >= 2 && top.allSatisfy(\.isLetter)
    }

    static func validate(_ email: String, field: String, into validator: inout Validator) {
        validator.require(isValid(email), field: field, code: "invalid-email", message: "must be an email address such as name@example.com")
    }
}

/// Passwords: 8–128 characters, at least one upper-case letter and one digit, not the username or the email, no NUL.
enum PasswordRules {
    static func validate(_ password: String, field: String, username: String?, email: String?, into validator: inout Validator) {
        validator.length(password, field: field, min: 8, max: 128)
        validateCharacters(password, field: field, into: &validator)
        validator.require(password.contains(where: \.isUppercase), field: field, code: "missing-uppercase",
                          message: "must contain an upper-case letter")
        validator.require(password.contains(where: \.isNumber), field: field, code: "missing-digit", message: "must contain a digit")
        let lowered = password.lowercased()
        if let username, !username.isEmpty {
            validator.require(lowered != username.lowercased(), field: field, code: "equals-username", message: "must not be the username")
        }
        if let email, !email.isEmpty {
            validator.require(lowered != Normalize.email(email), field: field, code: "equals-email", message: "must not be the email")
        }
    }

    /// What bcrypt cannot carry: libxcrypt takes a C string, so a NUL would end the password early (and the hasher
    /// refuses it). Checked on every field that takes a password — new ones and the ones being verified (login, current
    /// password) — so such input is a `422 invalid-characters` field error before any hashing.
    static func validateCharacters(_ password: String, field: String, into validator: inout Validator) {
        validator.require(!password.utf8.contains(0), field: field, code: "invalid-characters", message: "must not contain NUL characters")
    }

    static func check(_ password: String, field: String, username: String?, email: String?) throws {
        var validator = Validator()
        validate(password, field: field, username: username, email: email, into: &validator)
        try validator.check()
    }
}
