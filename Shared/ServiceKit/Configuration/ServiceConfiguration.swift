import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the HTTP shell of a Waypoint service reads from the environment, read once at start-up.
///
/// Every key exists in two spellings: `WAYPOINT_<SERVICE>_<KEY>` (e.g. `WAYPOINT_TOUR_MANAGEMENT_PORT`)
/// wins over the generic `WAYPOINT_<KEY>` (e.g. `WAYPOINT_PORT`). The table of keys, defaults and units
/// lives in `docs/service-kit.md`.
public struct ServiceConfiguration: Sendable, Equatable {
    /// The service's name as in `DESIGN.md`, e.g. `tour-management`; used in logs and as the key segment.
    public var serviceName: String
    /// Interface the HTTP server binds to (`HOST`, default `127.0.0.1`).
    public var host: String
    /// TCP port the HTTP server binds to; `0` picks a free port (`PORT`, default given by the service).
    public var port: Int
    /// Largest accepted request body in bytes (`MAX_BODY_BYTES`, default 1 MiB = 1 048 576 bytes).
    public var maxBodyBytes: Int
    /// Where `auth` publishes its signing keys (`JWKS_URL`, default `http://127.0.0.1:8081/.well-known/jwks.json`).
    public var jwksURL: String
    /// Required `iss` claim of access tokens (`JWT_ISSUER`, default `waypoint-auth`).
    public var jwtIssuer: String
    /// Required `aud` claim of access tokens (`JWT_AUDIENCE`, default `waypoint`).
    public var jwtAudience: String
    /// Shared secret guarding `/v1/internal/*` (`INTERNAL_TOKEN`, default unset: every internal call is refused).
    public var internalToken: String?
    /// Minimum level of log lines written (`LOG_LEVEL`, default `info`).
    public var logLevel: Logger.Level
    /// Shape of log lines (`LOG_FORMAT`, `json` or `text`, default `json`).
    public var logFormat: LogFormat
    /// Upper bound on the whole graceful shutdown, in seconds (`DRAIN_TIMEOUT_SECONDS`, default 30 s).
    public var drainTimeout: Duration
    /// Time between readiness turning 503 and the HTTP listener closing, in seconds
    /// (`DRAIN_DELAY_SECONDS`, default 0 s; set it to the load balancer's probe period in production).
    public var drainDelay: Duration

    /// The default largest request body: 1 MiB.
    public static let defaultMaxBodyBytes = 1_048_576
    /// The shortest accepted internal token, in characters.
    public static let minimumInternalTokenLength = 16

    /// Creates a configuration from explicit values; every parameter has the documented default.
    public init(
        serviceName: String,
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = ServiceConfiguration.defaultMaxBodyBytes,
        jwksURL: String = "http://127.0.0.1:8081/.well-known/jwks.json",
        jwtIssuer: String = "waypoint-auth",
        jwtAudience: String = "waypoint",
        internalToken: String? = nil,
        logLevel: Logger.Level = .info,
        logFormat: LogFormat = .json,
        drainTimeout: Duration = .seconds(30),
        drainDelay: Duration = .zero
    ) {
        self.serviceName = serviceName
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.jwksURL = jwksURL
        self.jwtIssuer = jwtIssuer
        self.jwtAudience = jwtAudience
        self.internalToken = internalToken
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.drainTimeout = drainTimeout
        self.drainDelay = drainDelay
    }

    /// Reads the configuration of `serviceName` from `environment`.
    ///
    /// - Parameters:
    ///   - serviceName: The service's name, e.g. `tour-management`.
    ///   - defaultPort: The port used when neither `WAYPOINT_<SERVICE>_PORT` nor `WAYPOINT_PORT` is set.
    ///   - environment: The process environment; tests pass a dictionary.
    /// - Throws: ``ConfigurationError`` naming the first key whose value is invalid.
    public static func fromEnvironment(
        serviceName: String,
        defaultPort: Int = 8080,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        let defaults = ServiceConfiguration(serviceName: serviceName, port: defaultPort)
        var configuration = defaults
        configuration.host = reader.string("HOST", default: defaults.host)
        configuration.port = try reader.integer("PORT", default: defaultPort, in: 0...65_535)
        configuration.maxBodyBytes = try reader.integer("MAX_BODY_BYTES", default: defaults.maxBodyBytes, in: 1...1_073_741_824)
        configuration.jwksURL = try readJWKSURL(reader, default: defaults.jwksURL)
        configuration.jwtIssuer = reader.string("JWT_ISSUER", default: defaults.jwtIssuer)
        configuration.jwtAudience = reader.string("JWT_AUDIENCE", default: defaults.jwtAudience)
        configuration.internalToken = try readInternalToken(reader)
        configuration.logLevel = try reader.choice("LOG_LEVEL", default: defaults.logLevel)
        configuration.logFormat = try reader.choice("LOG_FORMAT", default: defaults.logFormat)
        configuration.drainTimeout = try reader.seconds("DRAIN_TIMEOUT_SECONDS", default: defaults.drainTimeout, minimum: 1)
        configuration.drainDelay = try reader.seconds("DRAIN_DELAY_SECONDS", default: defaults.drainDelay, minimum: 0)
        return configuration
    }

    private static func readJWKSURL(_ reader: EnvironmentReader, default defaultValue: String) throws -> String {
        guard let (key, raw) = reader.value("JWKS_URL") else { return defaultValue }
        guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError(key: key, value: raw, expected: "an absolute http or https URL")
        }
        return raw
    }

    private static func readInternalToken(_ reader: EnvironmentReader) throws -> String? {
        guard let (key, raw) = reader.value("INTERNAL_TOKEN") else { return nil }
        guard raw.count >= minimumInternalTokenLength else {
            // Do not echo a secret back into logs, even a bad one.
            throw ConfigurationError(key: key, value: "<redacted>", expected: "at least \(minimumInternalTokenLength) characters")
        }
        return raw
    }
}
