import HTTPTypes
import Hummingbird
import Metrics
import NIOCore
import ServiceKit

/// The public-answer cache in front of the catalogue routes (see ``RoutePolicies/isCacheable(method:path:)`` and
/// ``CacheRules``): `X-Cache: hit|miss` on every answer of a cacheable route, `Age` on hits.
public struct EdgeCache: Sendable {
    /// `X-Cache`.
    public static let xCache = HTTPField.Name("X-Cache")!
    /// Fields never stored: they belong to one request.
    static let perRequestFields: [HTTPField.Name] = [
        ServiceHeaders.requestID, ServiceHeaders.traceparent, .age, .date, RateLimitHeaders.policy, RateLimitHeaders.rateLimit,
    ]

    /// The store.
    public let store: ResponseCache
    /// Longest time an answer is served.
    public let ttl: Duration

    /// `gateway_cache_entries` and `gateway_cache_bytes` (what the store holds, by ``ResponseCache/cost(_:_:)``),
    /// recorded after each store; `nil` without a metrics factory.
    let gauges: (entries: Gauge, bytes: Gauge)?

    /// A cache with the configured bounds; `nil` when the TTL is 0.
    public init?(configuration: GatewayConfiguration, metrics: (any MetricsFactory)? = nil) {
        guard configuration.cacheTTL > .zero else { return nil }
        self.gauges = metrics.map {
            (Gauge(label: "gateway_cache_entries", factory: $0), Gauge(label: "gateway_cache_bytes", factory: $0))
        }
        store = ResponseCache(maximumEntries: configuration.cacheMaxEntries, maximumBytes: configuration.cacheMaxBytes,
                              maximumEntryBytes: configuration.cacheMaxEntryBytes)
        ttl = configuration.cacheTTL
    }

    /// Serves `request` from the cache, or through `fetch` — storing the answer as it streams when it is public.
    func serve(_ request: Request, fetch: () async throws -> UpstreamAnswer) async throws -> Response {
        guard CacheRules.isEligible(request) else {
            var response = try await fetch().response
            response.headers[Self.xCache] = "miss"
            return response
        }
        let key = CacheRules.key(for: request)
        let now = ContinuousClock.now
        if let hit = store.lookup(key, now: now) {
            var headers = hit.headers
            headers[Self.xCache] = "hit"
            headers[.age] = String((now - hit.storedAt).components.seconds)
            headers[.contentLength] = String(hit.bytes.count)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: hit.body))
        }
        let answer = try await fetch()
        var response: Response
        if let lifetime = CacheRules.storableDuration(status: answer.status, headers: answer.headers, ttl: ttl) {
            var stored = answer.headers
            for name in Self.perRequestFields { stored[name] = nil }
            let store = store, headers = stored, gauges = gauges
            let body = CachingBody(base: answer.body, limit: store.maximumEntryBytes) { bytes in
                let storedAt = ContinuousClock.now
                store.store(key, CachedResponse(headers: headers, bytes: bytes, storedAt: storedAt, expiresAt: storedAt + lifetime), now: storedAt)
                if let gauges {
                    let usage = store.usage
                    gauges.entries.record(usage.entries)
                    gauges.bytes.record(usage.bytes)
                }
            }
            response = Response(status: answer.status, headers: answer.headers, body: .relaying(body, finishing: answer.relay))
        } else {
            response = answer.response
        }
        response.headers[Self.xCache] = "miss"
        return response
    }
}
