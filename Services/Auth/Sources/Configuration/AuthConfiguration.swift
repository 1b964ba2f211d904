import AuthInfrastructure
import Foundation
import Messaging
import ServiceKit

/// Everything `auth` reads at start-up. Generic keys (port, tokens, storage, transport) are ServiceKit's and the
/// runtime's; auth's own keys are `WAYPOINT_AUTH_*`:
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_AUTH_BCRYPT_COST` | bcrypt cost of new password hashes (10–31) | 12 |
/// | `WAYPOINT_AUTH_PUBLIC_BASE_URL` | base of the link in password-reset mails | `http://localhost:8080` |
/// | `WAYPOINT_AUTH_MAIL_FROM` | sender of auth's mails | `Waypoint <no-reply@waypoint.local>` |
/// | `WAYPOINT_AUTH_SMTP_HOST` | send mail over SMTP instead of into `<data dir>/mailbox/auth` | unset |
/// | `WAYPOINT_AUTH_SMTP_PORT` | SMTP port | 587 |
/// | `WAYPOINT_AUTH_SMTP_SECURITY` | `none`, `starttls` or `tls` | `starttls` |
/// | `WAYPOINT_AUTH_SMTP_USERNAME`, `…_PASSWORD` | SMTP `AUTH PLAIN` credentials | unset |
/// | `WAYPOINT_AUTH_GOOGLE_CLIENT_IDS` | comma-separated OAuth client ids accepted as `aud` of Google ID tokens (enables SSO) | unset |
/// | `WAYPOINT_AUTH_GOOGLE_JWKS_URL` | Google's signing keys | `https://www.googleapis.com/oauth2/v3/certs` |
/// | `WAYPOINT_AUTH_APPLE_CLIENT_IDS` | Sign in with Apple service ids (enables SSO) | unset |
/// | `WAYPOINT_AUTH_APPLE_JWKS_URL` | Apple's signing keys | `https://appleid.apple.com/auth/keys` |
/// | `WAYPOINT_AUTH_SSO_KEY_FETCH_TIMEOUT_SECONDS` | how long fetching a provider's signing keys may take (≥ 0.1) | 5 |
public struct AuthConfiguration: Sendable {
    public static let serviceName = "auth"
    public static let defaultPort = 8081

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    public var bcryptCost: Int
    public var settings: AuthSettings
    public var mailFrom: String
    public var smtp: SMTPConfiguration?
    public var ssoProviders: [OIDCProvider]
    /// How long fetching a provider's signing keys (JWKS) may take before the sign-in is refused.
    public var ssoKeyFetchTimeout: Duration = .seconds(5)

    public init(service: ServiceConfiguration, runtime: RuntimeSettings, bcryptCost: Int = 12, settings: AuthSettings = AuthSettings(),
                mailFrom: String = "Waypoint <no-reply@waypoint.local>", smtp: SMTPConfiguration? = nil, ssoProviders: [OIDCProvider] = []) {
        self.service = service
        self.runtime = runtime
        self.bcryptCost = bcryptCost
        self.settings = settings
        self.mailFrom = mailFrom
        self.smtp = smtp
        self.ssoProviders = ssoProviders
    }

    /// The mailbox directory of the embedded mail sender.
    public var mailboxDirectory: URL {
        runtime.dataDirectory.appendingPathComponent("mailbox", isDirectory: true).appendingPathComponent("auth", isDirectory: true)
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AuthConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        var configuration = AuthConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment))
        configuration.bcryptCost = try reader.integer("BCRYPT_COST", default: 12, in: PasswordHasher.allowedCosts)
        configuration.settings.publicBaseURL = reader.string("PUBLIC_BASE_URL", default: configuration.settings.publicBaseURL)
        configuration.mailFrom = reader.string("MAIL_FROM", default: configuration.mailFrom)
        if let (_, host) = reader.value("SMTP_HOST") {
            let security = try reader.choice("SMTP_SECURITY", default: SMTPSecurityChoice.starttls)
            configuration.smtp = SMTPConfiguration(
                host: host, port: try reader.integer("SMTP_PORT", default: 587, in: 1...65_535), from: configuration.mailFrom,
                security: security.value, username: reader.value("SMTP_USERNAME")?.value, password: reader.value("SMTP_PASSWORD")?.value)
        }
        if let (_, ids) = reader.value("GOOGLE_CLIENT_IDS") {
            configuration.ssoProviders.append(.google(
                clientIDs: ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                jwksURL: reader.string("GOOGLE_JWKS_URL", default: "https://www.googleapis.com/oauth2/v3/certs")))
        }
        configuration.ssoKeyFetchTimeout = try reader.seconds("SSO_KEY_FETCH_TIMEOUT_SECONDS", default: configuration.ssoKeyFetchTimeout,
                                                             minimum: 0.1)
        if let (_, ids) = reader.value("APPLE_CLIENT_IDS") {
            configuration.ssoProviders.append(.apple(
                clientIDs: ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                jwksURL: reader.string("APPLE_JWKS_URL", default: "https://appleid.apple.com/auth/keys")))
        }
        return configuration
    }
}

enum SMTPSecurityChoice: String, CaseIterable {
    case none
    case starttls
    case tls

    var value: SMTPConfiguration.Security {
        switch self {
        case .none: .none
        case .starttls: .startTLS
        case .tls: .tls
        }
    }
}
