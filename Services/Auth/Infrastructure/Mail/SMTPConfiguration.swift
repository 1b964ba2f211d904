import NIOSSL

/// Where and how ``SMTPEmailSender`` submits mail.
public struct SMTPConfiguration: Sendable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Hashable {
        /// Plain text (a relay on the same host or a trusted network only).
        case none
        /// Plain connect, then `STARTTLS` before anything else (usually port 587); fails when the
        /// server does not offer it.
        case startTLS
        /// TLS from the first byte (implicit TLS, usually port 465).
        case tls
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The sender, `addr@domain` or `Display Name <addr@domain>`.
    public var from: String
    /// Connection protection.
    public var security: Security
    /// User name for `AUTH PLAIN`; no authentication when `nil`.
    public var username: String?
    /// Password for `AUTH PLAIN`.
    public var password: String?
    /// The name we announce in `EHLO`.
    public var heloName: String
    /// Bound on the whole exchange, connect to `QUIT`.
    public var timeout: Duration
    /// TLS settings for ``Security/startTLS`` and ``Security/tls`` (default: system trust roots,
    /// full certificate and host-name verification).
    public var tlsConfiguration: TLSConfiguration
    /// A PEM file of CA certificates trusted in addition to ``tlsConfiguration``'s roots (a private
    /// relay's CA), so operators need not build a `TLSConfiguration`.
    public var caCertificatesFile: String?

    /// Creates a configuration.
    public init(
        host: String,
        port: Int,
        from: String,
        security: Security,
        username: String? = nil,
        password: String? = nil,
        heloName: String = "waypoint",
        timeout: Duration = .seconds(10),
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration(),
        caCertificatesFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.from = from
        self.security = security
        self.username = username
        self.password = password
        self.heloName = heloName
        self.timeout = timeout
        self.tlsConfiguration = tlsConfiguration
        self.caCertificatesFile = caCertificatesFile
    }
}
