import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// The caller's own account (`GET /v1/users/me`, registration).
struct AccountResponse: ResponseEncodable {
    var id: String
    var username: String
    var email: String
    var role: UserRole
    var baseRole: UserRole
    var status: AccountStatus
    var licenceNumber: String?
    var displayName: String?
    var avatarUrl: String?
    var homeCurrency: String?
    var language: String?
    var registeredAt: Date

    /// The account as the `Account` schema describes it. An erased account has no username or email any more (and
    /// no session), so it is never answered as an account: a command that raced an erasure (say `PATCH /v1/users/me`
    /// against `DELETE /v1/users/me`) answers `404 not-found` like a request that came after it.
    init(_ user: UserRecord) throws {
        guard user.status != .erased, let username = user.username, let email = user.email else {
            throw Problem.notFound("no such user")
        }
        id = user.id.uuidString.lowercased()
        self.username = username
        self.email = email
        role = user.effectiveRole
        baseRole = user.baseRole
        status = user.status
        licenceNumber = user.licenceNumber
        displayName = user.displayName
        avatarUrl = user.avatarUrl
        homeCurrency = user.homeCurrency?.code
        language = user.language
        registeredAt = user.registeredAt
    }
}

/// What anyone may see of an active account (`GET /v1/users/{id}`): how guides and reviewers are shown.
struct PublicProfileResponse: ResponseEncodable {
    var id: String
    var username: String
    var displayName: String?
    var avatarUrl: String?
    var role: UserRole
}

/// Tokens handed out by login, SSO and refresh.
struct TokenResponse: ResponseEncodable {
    struct User: Codable, Sendable {
        var id: String
        var username: String?
        var role: UserRole
    }

    var accessToken: String
    var tokenType = "Bearer"
    /// Seconds until the access token expires.
    var expiresIn: Int
    var refreshToken: String
    var refreshTokenExpiresAt: Date
    var sessionId: String
    var user: User
    /// SSO only: whether this sign-in created the account.
    var created: Bool?

    init(_ tokens: IssuedTokens, now: Date, created: Bool? = nil) {
        accessToken = tokens.accessToken
        expiresIn = max(0, Int(tokens.accessTokenExpiresAt.timeIntervalSince(now).rounded(.up)))
        refreshToken = tokens.refreshToken
        refreshTokenExpiresAt = tokens.refreshTokenExpiresAt
        sessionId = tokens.sessionId.uuidString.lowercased()
        user = User(id: tokens.user.id.uuidString.lowercased(), username: tokens.user.username, role: tokens.user.effectiveRole)
        self.created = created
    }
}

/// One entry of `GET /v1/auth/sessions`.
struct SessionResponse: Codable, Sendable {
    var id: String
    var deviceId: String?
    var method: AuthenticationMethod
    var startedAt: Date
    var lastRefreshedAt: Date
    var expiresAt: Date
    /// Whether the request came with this session's access token.
    var current: Bool
}

struct SessionListResponse: ResponseEncodable {
    var sessions: [SessionResponse]
}

/// `202 Accepted` bodies.
struct AcceptedResponse: ResponseEncodable {
    var status = "accepted"
    var detail: String
}
