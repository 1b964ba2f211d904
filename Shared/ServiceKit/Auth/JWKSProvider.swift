import AsyncHTTPClient
import JWTKit
import Logging
import NIOCore
import Synchronization

/// Fetches `auth`'s JWK Set over HTTP, caches its RS256 keys and refetches when a token names an
/// unknown `kid` (key rotation), at most once per ``minimumRefetchInterval``.
///
/// Cached keys older than ``maximumAge`` are refreshed on use; if that refresh fails the old keys stay
/// in use. Concurrent lookups share one fetch. When no fetch has ever succeeded, or the last one failed
/// and the key is unknown, lookups throw ``AccessTokenError/keysUnavailable`` (answered with 503, not
/// 401, so clients do not discard valid tokens while `auth` is down).
public actor JWKSProvider: AccessTokenKeySource {
    /// The JWKS document's URL.
    public let url: String
    /// Shortest time between two fetches (default 10 s), so forged `kid`s cannot flood `auth`.
    public let minimumRefetchInterval: Duration
    /// Age after which cached keys are refreshed on use (default 5 min).
    public let maximumAge: Duration
    /// Timeout of one fetch (default 5 s).
    public let fetchTimeout: Duration
    /// Number of fetches started so far (for tests and diagnostics).
    public private(set) var fetchCount = 0

    private let httpClient: HTTPClient
    private let logger: Logger
    /// The keys of the last successful fetch with their DER and when they were fetched — the one copy of them, read
    /// by lookups inside the actor and by ``heldKey(for:)`` without entering it.
    private nonisolated let held = Mutex<(keys: [String: AccessTokenKey], fetchedAt: ContinuousClock.Instant?)>(([:], nil))
    private var lastAttempt: ContinuousClock.Instant?
    private var lastAttemptFailed = false
    private var inFlight: Task<Void, any Error>?

    /// Largest JWKS document accepted, in bytes.
    static let maximumDocumentBytes = 1 << 20

    /// Creates a provider; nothing is fetched until the first lookup.
    public init(
        url: String,
        httpClient: HTTPClient = .shared,
        minimumRefetchInterval: Duration = .seconds(10),
        maximumAge: Duration = .seconds(300),
        fetchTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "waypoint.jwks")
    ) {
        self.url = url
        self.httpClient = httpClient
        self.minimumRefetchInterval = minimumRefetchInterval
        self.maximumAge = maximumAge
        self.fetchTimeout = fetchTimeout
        self.logger = logger
    }

    /// The key with `kid`, fetching or refetching the key set when needed and allowed.
    public func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey? {
        let now = ContinuousClock.now
        let (keys, fetchedAt) = held.withLock { $0 }
        let isStale = fetchedAt.map { now - $0 > maximumAge } ?? true
        if let key = keys[kid]?.key, !isStale { return key }
        guard inFlight != nil || mayFetch(at: now) else {
            // Rate-limited: answer from what we know.
            if keys[kid] == nil, lastAttemptFailed || fetchedAt == nil { throw AccessTokenError.keysUnavailable }
            return keys[kid]?.key
        }
        do {
            try await refresh()
        } catch {
            if held.withLock({ $0.keys[kid] }) == nil { throw AccessTokenError.keysUnavailable }
        }
        return held.withLock { $0.keys[kid]?.key }
    }

    /// The key with `kid` from the last fetch while it is not older than ``maximumAge`` — exactly when
    /// ``publicKey(for:)`` would answer it without fetching; `nil` otherwise (unknown `kid`, stale or never fetched).
    public nonisolated func heldKey(for kid: String) -> AccessTokenKey? {
        held.withLock { held in
            guard let fetchedAt = held.fetchedAt, ContinuousClock.now - fetchedAt <= maximumAge else { return nil }
            return held.keys[kid]
        }
    }

    /// Fetches the key set now (sharing a fetch already under way), ignoring the rate limit.
    public func refresh() async throws {
        if let inFlight {
            return try await inFlight.value
        }
        let task = Task { try await self.fetchAndStore() }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
    }

    private func mayFetch(at now: ContinuousClock.Instant) -> Bool {
        guard let lastAttempt else { return true }
        return now - lastAttempt >= minimumRefetchInterval
    }

    private func fetchAndStore() async throws {
        fetchCount += 1
        lastAttempt = .now
        do {
            let fetched = try await Self.fetch(url: url, client: httpClient, timeout: fetchTimeout)
            let fresh = (keys: fetched.mapValues(AccessTokenKey.init), fetchedAt: ContinuousClock.now as ContinuousClock.Instant?)
            held.withLock { $0 = fresh }
            lastAttemptFailed = false
            logger.debug("fetched JWKS", metadata: ["jwks_url": .string(url), "kids": .string(fetched.keys.sorted().joined(separator: ","))])
        } catch {
            lastAttemptFailed = true
            logger.warning("JWKS fetch failed", metadata: ["jwks_url": .string(url), "error": .string(String(describing: error))])
            throw error
        }
    }

    private static func fetch(url: String, client: HTTPClient, timeout: Duration) async throws -> [String: Insecure.RSA.PublicKey] {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout / .nanoseconds(1))))
        guard response.status == .ok else {
            throw JWKSFetchError(status: Int(response.status.code))
        }
        let body = try await response.body.collect(upTo: maximumDocumentBytes)
        return try JSONWebKeySet(json: body.readableBytesView).rs256PublicKeys()
    }
}
