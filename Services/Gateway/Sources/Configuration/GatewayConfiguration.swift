import Foundation
import Messaging
import ServiceKit

/// Everything the gateway reads from the environment, read once at start-up.
///
/// Keys are `WAYPOINT_GATEWAY_<KEY>` (or the generic `WAYPOINT_<KEY>`); the table with defaults and units is in
/// `docs/gateway.md`. Upstream URLs come from ``ServiceEndpoints`` (`WAYPOINT_GATEWAY_AUTH_URL` over `WAYPOINT_AUTH_URL`).
public struct GatewayConfiguration: Sendable {
    /// The gateway's port when neither `WAYPOINT_GATEWAY_PORT` nor `WAYPOINT_PORT` is set.
    public static let defaultPort = 8080
    /// Every service the gateway can route to.
    public static let upstreamServices = ["auth", "tour-management", "path-review", "navigation", "record-trip", "analytics"]
    /// The longest accepted cache TTL: 5 minutes.
    public static let maximumCacheTTL: Duration = .seconds(300)

    /// Host, port, default body limit (`MAX_BODY_BYTES`, 1 MiB), token issuer and audience, JWKS URL, logs, drain.
    public var service: ServiceConfiguration
    /// Base URLs of the upstream services; a service without one answers 503.
    public var endpoints: ServiceEndpoints
    /// Body limit of media uploads (`MEDIA_MAX_BODY_BYTES`, default 100 MiB), in bytes.
    public var mediaMaxBodyBytes: Int
    /// Time an upstream may stay silent — before its response head and between body bytes — before 504
    /// (`UPSTREAM_TIMEOUT_SECONDS`, default 5 s; `<SERVICE>_TIMEOUT_SECONDS` per upstream, e.g. `AUTH_TIMEOUT_SECONDS`).
    public var upstreamTimeouts: [String: Duration]
    /// Default of ``upstreamTimeouts``.
    public var upstreamTimeout: Duration
    /// Requests per minute and client IP on `/v1/auth/*` (`AUTH_RATE_PER_MINUTE`, default 100; 0 disables).
    public var authRatePerMinute: Int
    /// Requests per minute and user (or IP when anonymous) elsewhere (`RATE_PER_MINUTE`, default 600; 0 disables).
    public var ratePerMinute: Int
    /// Most rate-limit buckets kept at once (`RATE_LIMIT_MAX_KEYS`, default 100 000); idle ones are evicted first.
    public var rateLimitMaxKeys: Int
    /// How long a public GET answer is served from the cache (`CACHE_TTL_SECONDS`, default 30 s, at most 300 s; 0 disables).
    public var cacheTTL: Duration
    /// Most cached answers (`CACHE_MAX_ENTRIES`, default 10 000).
    public var cacheMaxEntries: Int
    /// Most bytes the cached answers may hold (`CACHE_MAX_BYTES`, default 32 MiB; see ``ResponseCache/cost(_:_:)``).
    public var cacheMaxBytes: Int
    /// Largest single cached body (`CACHE_MAX_ENTRY_BYTES`, default 1 MiB); larger answers stream uncached.
    public var cacheMaxEntryBytes: Int
    /// Where the cache's ``CacheEventFollower`` reads tour-management's events: `waypoint.tours` on Kafka when
    /// `KAFKA_BROKERS` is set, else tour-management's embedded feed (with `INTERNAL_TOKEN`); `nil` (`CACHE_EVENTS=off`,
    /// or no tour-management URL) keeps answers for the TTL whatever changes. The default (tests) is `nil`.
    public var cacheEvents: CacheEventFollower.Transport?
    /// Consecutive failures that open an upstream's circuit (`CIRCUIT_FAILURE_THRESHOLD`, default 5).
    public var circuitFailureThreshold: Int
    /// The longest an open circuit refuses before a half-open probe (`CIRCUIT_OPEN_SECONDS`, default 30 s): the ceiling
    /// of the back-off.
    public var circuitOpenDuration: Duration
    /// The first open period after a circuit opens (`CIRCUIT_INITIAL_OPEN_SECONDS`, default 1 s, at most
    /// `circuitOpenDuration`); each failed probe doubles it. A service reporting ready closes the circuit sooner.
    public var circuitInitialOpenDuration: Duration = .seconds(1)
    /// Retries allowed as a share of requests, per upstream (`RETRY_BUDGET_PERCENT`, default 10 %).
    public var retryBudgetPercent: Int
    /// Retries allowed per second and upstream regardless of traffic (`RETRY_MIN_PER_SECOND`, default 1).
    public var retryMinPerSecond: Int
    /// Whether plain proxied requests take the fast path (`PROXY_FAST_PATH`, `on` by default, `off`): `GET` and `HEAD`
    /// without a body, and writes with no body or a small one of declared length, to a plain-HTTP upstream, anonymous
    /// or with a token verified before, answered by a channel
    /// handler on the connection's event loop instead of the router (``ProxyFastPath``). Same answers, same edge
    /// (tracing, rate limits, cache, CORS, access log, metrics, breakers, retries); `off` sends everything through the
    /// router.
    public var proxyFastPath = true
    /// Proxies in front of the gateway whose `X-Forwarded-For` names the client (`TRUSTED_PROXIES`, comma-separated
    /// addresses or CIDR blocks; default none: the gateway is the edge). See ``ClientAddressResolver``.
    public var trustedProxies: [IPNetwork]
    /// Origins allowed to call from browsers (`CORS_ORIGINS`, comma-separated; `*` for any; default none).
    public var corsOrigins: [String]
    /// Time a client connection may send nothing — mid-request or between requests — before it is closed
    /// (`CLIENT_IDLE_TIMEOUT_SECONDS`, default 75 s, nginx's keep-alive default: longer than a phone's minute between
    /// ride uploads, so each upload does not need a new connection and cannot meet one being closed as it is sent).
    public var clientIdleTimeout: Duration
    /// Services whose readiness the gateway's `/health/ready` requires (`REQUIRED_SERVICES`, default
    /// `auth,tour-management,analytics`); the others are listed but never fail it.
    public var requiredServices: [String]

    /// Creates a configuration; every parameter has the documented default.
    public init(
        service: ServiceConfiguration = ServiceConfiguration(serviceName: GatewayService.name, port: defaultPort),
        endpoints: ServiceEndpoints = ServiceEndpoints(baseURLs: ServiceEndpoints.localBaseURLs),
        mediaMaxBodyBytes: Int = 104_857_600,
        upstreamTimeout: Duration = .seconds(5),
        upstreamTimeouts: [String: Duration] = [:],
        authRatePerMinute: Int = 100,
        ratePerMinute: Int = 600,
        rateLimitMaxKeys: Int = 100_000,
        cacheTTL: Duration = .seconds(30),
        cacheMaxEntries: Int = 10_000,
        cacheMaxBytes: Int = 32 << 20,
        cacheMaxEntryBytes: Int = 1 << 20,
        cacheEvents: CacheEventFollower.Transport? = nil,
        circuitFailureThreshold: Int = 5,
        circuitOpenDuration: Duration = .seconds(30),
        retryBudgetPercent: Int = 10,
        retryMinPerSecond: Int = 1,
        trustedProxies: [IPNetwork] = [],
        corsOrigins: [String] = [],
        clientIdleTimeout: Duration = .seconds(75),
        requiredServices: [String] = ["auth", "tour-management", "analytics"]
    ) {
        self.service = service
        self.endpoints = endpoints
        self.mediaMaxBodyBytes = mediaMaxBodyBytes
        self.upstreamTimeout = upstreamTimeout
        self.upstreamTimeouts = upstreamTimeouts
        self.authRatePerMinute = authRatePerMinute
        self.ratePerMinute = ratePerMinute
        self.rateLimitMaxKeys = rateLimitMaxKeys
        self.cacheTTL = cacheTTL
        self.cacheMaxEntries = cacheMaxEntries
        self.cacheMaxBytes = cacheMaxBytes
        self.cacheMaxEntryBytes = cacheMaxEntryBytes
        self.cacheEvents = cacheEvents
        self.circuitFailureThreshold = circuitFailureThreshold
        self.circuitOpenDuration = circuitOpenDuration
        self.retryBudgetPercent = retryBudgetPercent
        self.retryMinPerSecond = retryMinPerSecond
        self.trustedProxies = trustedProxies
        self.corsOrigins = corsOrigins
        self.clientIdleTimeout = clientIdleTimeout
        self.requiredServices = requiredServices
    }

    /// The timeout of `upstream`: its own key, else ``upstreamTimeout``.
    public func timeout(of upstream: String) -> Duration {
        upstreamTimeouts[upstream] ?? upstreamTimeout
    }

    /// More instances of a service than its one URL (`WAYPOINT_GATEWAY_<SERVICE>_URLS`, comma-separated base URLs,
    /// which then replace `…_URL`): the gateway balances round-robin over them (``UpstreamPool``).
    public var instances: [String: [URL]] = [:]

    /// Every instance of `upstream`: the configured list, else its one URL, else none.
    public func instanceURLs(of upstream: String) -> [URL] {
        if let list = instances[upstream], !list.isEmpty { return list }
        return endpoints.baseURL(of: upstream).map { [$0] } ?? []
    }

    /// Reads the configuration from `environment`.
    /// - Throws: ``ConfigurationError`` naming the first invalid key (e.g. a cache TTL above 300 s).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GatewayConfiguration {
        let name = GatewayService.name
        let reader = EnvironmentReader(serviceName: name, environment: environment)
        var service = try ServiceConfiguration.fromEnvironment(serviceName: name, defaultPort: defaultPort, environment: environment)
        let endpoints = try ServiceEndpoints.fromEnvironment(serviceName: name, services: upstreamServices,
                                                             defaults: ServiceEndpoints.localBaseURLs, environment: environment)
        if reader.value("JWKS_URL") == nil, let auth = endpoints.baseURL(of: "auth") {
            service.jwksURL = auth.absoluteString + "/.well-known/jwks.json"  // follow auth wherever it was configured
        }
        let defaults = GatewayConfiguration(service: service, endpoints: endpoints)
        var configuration = defaults
        configuration.instances = try readInstances(reader)
        configuration.mediaMaxBodyBytes = try reader.integer("MEDIA_MAX_BODY_BYTES", default: defaults.mediaMaxBodyBytes, in: 1...(1 << 34))
        configuration.upstreamTimeout = try reader.seconds("UPSTREAM_TIMEOUT_SECONDS", default: defaults.upstreamTimeout, minimum: 0.01)
        for upstream in upstreamServices {
            let suffix = "\(EnvironmentReader.segment(for: upstream))_TIMEOUT_SECONDS"
            if reader.value(suffix) != nil {
                configuration.upstreamTimeouts[upstream] = try reader.seconds(suffix, default: configuration.upstreamTimeout, minimum: 0.01)
            }
        }
        configuration.authRatePerMinute = try reader.integer("AUTH_RATE_PER_MINUTE", default: defaults.authRatePerMinute, in: 0...1_000_000)
        configuration.ratePerMinute = try reader.integer("RATE_PER_MINUTE", default: defaults.ratePerMinute, in: 0...1_000_000)
        configuration.rateLimitMaxKeys = try reader.integer("RATE_LIMIT_MAX_KEYS", default: defaults.rateLimitMaxKeys, in: 100...10_000_000)
        configuration.cacheTTL = try readCacheTTL(reader, default: defaults.cacheTTL)
        configuration.cacheMaxEntries = try reader.integer("CACHE_MAX_ENTRIES", default: defaults.cacheMaxEntries, in: 1...1_000_000)
        configuration.cacheMaxBytes = try reader.integer("CACHE_MAX_BYTES", default: defaults.cacheMaxBytes, in: 1...(1 << 34))
        configuration.cacheMaxEntryBytes = try reader.integer("CACHE_MAX_ENTRY_BYTES", default: defaults.cacheMaxEntryBytes, in: 1...(1 << 30))
        configuration.cacheEvents = try readCacheEvents(reader, endpoints: endpoints, internalToken: service.internalToken)
        configuration.circuitFailureThreshold = try reader.integer("CIRCUIT_FAILURE_THRESHOLD", default: defaults.circuitFailureThreshold, in: 1...1000)
        configuration.circuitOpenDuration = try reader.seconds("CIRCUIT_OPEN_SECONDS", default: defaults.circuitOpenDuration, minimum: 0.01)
        configuration.circuitInitialOpenDuration = try reader.seconds("CIRCUIT_INITIAL_OPEN_SECONDS", default: defaults.circuitInitialOpenDuration,
                                                                      minimum: 0.01)
        configuration.retryBudgetPercent = try reader.integer("RETRY_BUDGET_PERCENT", default: defaults.retryBudgetPercent, in: 0...100)
        configuration.retryMinPerSecond = try reader.integer("RETRY_MIN_PER_SECOND", default: defaults.retryMinPerSecond, in: 0...1000)
        configuration.trustedProxies = try readTrustedProxies(reader)
        configuration.corsOrigins = list(reader.string("CORS_ORIGINS", default: ""))
        configuration.clientIdleTimeout = try reader.seconds("CLIENT_IDLE_TIMEOUT_SECONDS", default: defaults.clientIdleTimeout, minimum: 0.1)
        configuration.proxyFastPath = try readSwitch(reader, "PROXY_FAST_PATH", default: defaults.proxyFastPath)
        configuration.requiredServices = try readRequiredServices(reader, default: defaults.requiredServices)
        return configuration
    }

    private static func readCacheTTL(_ reader: EnvironmentReader, default defaultValue: Duration) throws -> Duration {
        let ttl = try reader.seconds("CACHE_TTL_SECONDS", default: defaultValue, minimum: 0)
        if ttl > maximumCacheTTL, let (key, raw) = reader.value("CACHE_TTL_SECONDS") {
            throw ConfigurationError(key: key, value: raw, expected: "a number of seconds between 0 and 300")
        }
        return ttl
    }

    /// `WAYPOINT_GATEWAY_<SERVICE>_URLS` of every upstream service that has one.
    private static func readInstances(_ reader: EnvironmentReader) throws -> [String: [URL]] {
        var instances: [String: [URL]] = [:]
        for upstream in upstreamServices {
            guard let (key, raw) = reader.value("\(EnvironmentReader.segment(for: upstream))_URLS") else { continue }
            let urls = try raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { text in
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
                      url.query == nil else {
                    throw ConfigurationError(key: key, value: raw, expected: "comma-separated absolute http(s) base URLs of the service's instances")
                }
                return url
            }
            if !urls.isEmpty { instances[upstream] = urls }
        }
        return instances
    }

    /// An `on`/`off` key.
    private static func readSwitch(_ reader: EnvironmentReader, _ suffix: String, default defaultValue: Bool) throws -> Bool {
        guard let (key, raw) = reader.value(suffix) else { return defaultValue }
        switch raw.lowercased() {
        case "on": return true
        case "off": return false
        default: throw ConfigurationError(key: key, value: raw, expected: "on or off")
        }
    }

    private static func readCacheEvents(_ reader: EnvironmentReader, endpoints: ServiceEndpoints, internalToken: String?) throws
        -> CacheEventFollower.Transport? {
        guard try readSwitch(reader, "CACHE_EVENTS", default: true) else { return nil }
        if let (_, brokers) = reader.value("KAFKA_BROKERS") { return .kafka(brokers: brokers, properties: [:]) }
        guard let url = endpoints.baseURL(of: CacheEventFollower.producer) else { return nil }
        return .embedded(EmbeddedFeed(source: CacheEventFollower.producer, baseURL: url.absoluteString, internalToken: internalToken ?? ""))
    }

    private static func readTrustedProxies(_ reader: EnvironmentReader) throws -> [IPNetwork] {
        guard let (key, raw) = reader.value("TRUSTED_PROXIES") else { return [] }
        return try list(raw).map { entry in
            guard let network = IPNetwork(entry) else {
                throw ConfigurationError(key: key, value: raw,
                                         expected: "a comma-separated list of IP addresses or CIDR blocks (10.0.0.0/8, 2001:db8::/32); \(entry) is not one")
            }
            return network
        }
    }

    private static func readRequiredServices(_ reader: EnvironmentReader, default defaultValue: [String]) throws -> [String] {
        guard let (key, raw) = reader.value("REQUIRED_SERVICES") else { return defaultValue }
        let names = list(raw)
        if let unknown = names.first(where: { !upstreamServices.contains($0) && $0 != "none" }) {
            throw ConfigurationError(key: key, value: raw, expected: "a comma-separated list of \(upstreamServices.joined(separator: ", ")) (or none); \(unknown) is not one")
        }
        return names.filter { $0 != "none" }
    }

    private static func list(_ raw: String) -> [String] {
        raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
