import Contracts
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore
import ServiceKit

/// The public-answer cache in front of the catalogue routes (see ``RoutePolicies/isCacheable(method:path:)`` and
/// ``CacheRules``): `X-Cache: hit|miss` on every answer of a cacheable route, `Age` on hits.
///
/// Entries are tagged with what the upstream's `Cache-Tag` names (qualified by the upstream: `tour-management/tours`)
/// and `<upstream>/*`, and stored with the log position of `Waypoint-Position`; both fields are internal and never
/// reach clients. ``purge(event:)`` (the ``CacheEventFollower``) and ``relayWrite(_:upstream:)`` (a successful unsafe
/// request) drop what changed (see ``ResponseCache``).
public struct EdgeCache: Sendable {
    /// `X-Cache`.
    public static let xCache = HTTPField.Name("X-Cache")!
    /// `Cache-Tag`: the tags of an upstream's answer (internal).
    public static let cacheTag = HTTPField.Name(CatalogueCacheTags.tagField)!
    /// `Waypoint-Position`: the upstream's log position its answer includes (internal).
    public static let position = HTTPField.Name(CatalogueCacheTags.positionField)!
    /// Fields never stored: they belong to one request.
    static let perRequestFields: [HTTPField.Name] = [
        ServiceHeaders.requestID, ServiceHeaders.traceparent, .age, .date, RateLimitHeaders.policy, RateLimitHeaders.rateLimit,
        cacheTag, position,
    ]
    /// Methods whose successful answer purges the upstream's entries (``relayWrite(_:upstream:)``).
    static let unsafeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// The store.
    public let store: ResponseCache
    /// Longest time an answer is served.
    public let ttl: Duration

    /// `gateway_cache_entries` and `gateway_cache_bytes` (what the store holds, by ``ResponseCache/cost(_:_:)``),
    /// recorded after each store; `nil` without a metrics factory.
    let gauges: (entries: Gauge, bytes: Gauge)?

    /// `gateway_cache_purges_total{reason}` and `gateway_cache_purged_entries_total{reason}` (reason `event`, `write`,
    /// `follower`), `gateway_cache_event_lag_seconds` and `gateway_cache_storing`.
    let invalidationMetrics: InvalidationMetrics

    /// A cache with the configured bounds; `nil` when the TTL is 0.
    public init?(configuration: GatewayConfiguration, metrics: (any MetricsFactory)? = nil) {
        guard configuration.cacheTTL > .zero else { return nil }
        self.gauges = metrics.map {
            (Gauge(label: "gateway_cache_entries", factory: $0), Gauge(label: "gateway_cache_bytes", factory: $0))
        }
        invalidationMetrics = InvalidationMetrics(factory: metrics)
        store = ResponseCache(maximumEntries: configuration.cacheMaxEntries, maximumBytes: configuration.cacheMaxBytes,
                              maximumEntryBytes: configuration.cacheMaxEntryBytes)
        ttl = configuration.cacheTTL
    }

    /// Serves `request` from the cache, or through `fetch` from `upstream` — storing the answer as it streams when it is
    /// public.
    func serve(_ request: Request, upstream: String, fetch: () async throws -> UpstreamAnswer) async throws -> Response {
        guard CacheRules.isEligible(request) else {
            var response = try await fetch().response
            Self.removeInternalFields(&response.headers)
            response.headers[Self.xCache] = "miss"
            return response
        }
        let key = CacheRules.key(for: request)
        if let hit = hit(key) {
            return Response(status: .ok, headers: hit.headers, body: ResponseBody(byteBuffer: hit.body))
        }
        let mark = store.mark
        let answer = try await fetch()
        var response: Response
        if let store = storing(answer.status, answer.headers, key: key, upstream: upstream, fetchedAt: mark) {
            let body = CachingBody(base: answer.body, limit: self.store.maximumEntryBytes, onComplete: store)
            response = Response(status: answer.status, headers: answer.headers, body: .relaying(body, finishing: answer.relay))
        } else {
            response = answer.response
        }
        Self.removeInternalFields(&response.headers)
        response.headers[Self.xCache] = "miss"
        return response
    }

    /// The stored answer under `key` as it is served (a 200 with `X-Cache: hit`, `Age` and `Content-Length`), if any.
    func hit(_ key: String, now: ContinuousClock.Instant = .now) -> (headers: HTTPFields, body: ByteBuffer)? {
        guard let hit = store.lookup(key, now: now) else { return nil }
        var headers = hit.headers
        headers[Self.xCache] = "hit"
        headers[.age] = String((now - hit.storedAt).components.seconds)
        headers[.contentLength] = String(hit.bytes.count)
        return (headers, hit.body)
    }

    /// What stores the whole body of an upstream answer (`status`, `headers`) to the request keyed `key` — `nil` when
    /// the answer may not be stored. `fetchedAt` is ``ResponseCache/mark`` taken before the request went upstream (an
    /// answer fetched before a purge is not stored).
    func storing(_ status: HTTPResponse.Status, _ headers: HTTPFields, key: String, upstream: String,
                 fetchedAt mark: UInt64) -> (@Sendable ([UInt8]) -> Void)? {
        guard let lifetime = CacheRules.storableDuration(status: status, headers: headers, ttl: ttl) else { return nil }
        var stored = headers
        for name in Self.perRequestFields { stored[name] = nil }
        let tags = Self.tags(of: headers, upstream: upstream)
        let position = Self.position(of: headers)
        let store = store, kept = stored, gauges = gauges
        return { bytes in
            let storedAt = ContinuousClock.now
            store.store(key, CachedResponse(headers: kept, bytes: bytes, storedAt: storedAt, expiresAt: storedAt + lifetime),
                        tags: tags, position: position, fetchedAt: mark, now: storedAt)
            if let gauges {
                let usage = store.usage
                gauges.entries.record(usage.entries)
                gauges.bytes.record(usage.bytes)
            }
        }
    }

    /// The answer to an unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`) to `upstream`: when it succeeded (2xx), every
    /// entry of the upstream is dropped — before the client has the answer, so its next read sees its change — and,
    /// when the upstream says which log position includes the write (`Waypoint-Position`), answers of the upstream
    /// below it are not stored any more (a read model that has not applied the write yet cannot put the old answer back).
    func relayWrite(_ answer: UpstreamAnswer, upstream: String) -> Response {
        var response = answer.response
        wrote(status: answer.status, headers: answer.headers, upstream: upstream)
        Self.removeInternalFields(&response.headers)
        return response
    }

    /// A write's answer (`status`, its fields before ``removeInternalFields(_:)``) came from `upstream`: a success
    /// drops the upstream's entries and raises their floor to the write's log position, if the answer names one.
    func wrote(status: HTTPResponse.Status, headers: HTTPFields, upstream: String) {
        guard (200..<300).contains(status.code) else { return }
        let dropped = store.purge(tags: ["\(upstream)/*"], position: Self.position(of: headers))
        invalidationMetrics.purged(dropped, reason: .write)
        recordUsage()
    }

    /// Drops the entries an event of `upstream` (its producer) changed, `tags` in the producer's words, and raises their
    /// floors to the event's log `position`.
    func purge(tags: [String], position: Int64, upstream: String) {
        guard !tags.isEmpty else { return }
        let dropped = store.purge(tags: tags.map { "\(upstream)/\($0)" }, position: position)
        invalidationMetrics.purged(dropped, reason: .event)
        recordUsage()
    }

    /// The event follower lost (or has not yet reached) its source: everything goes and nothing is stored until
    /// ``resumeStoring()``, since changes may go unseen meanwhile.
    /// - Parameter starting: the follower is being created (the cache is empty): no purge is counted.
    func stopStoring(starting: Bool = false) {
        let wasStoring = store.isStoring
        let dropped = store.purgeAll(stopStoring: true)
        if wasStoring, !starting { invalidationMetrics.purged(dropped, reason: .follower) }
        invalidationMetrics.storing?.record(0)
        recordUsage()
    }

    /// The event follower is live again.
    func resumeStoring() {
        store.resumeStoring()
        invalidationMetrics.storing?.record(1)
    }

    private func recordUsage() {
        guard let gauges else { return }
        let usage = store.usage
        gauges.entries.record(usage.entries)
        gauges.bytes.record(usage.bytes)
    }

    static func removeInternalFields(_ headers: inout HTTPFields) {
        guard headers[cacheTag] != nil || headers[position] != nil else { return }
        headers[cacheTag] = nil
        headers[position] = nil
    }

    /// `<upstream>/*` and every tag of `Cache-Tag` (separated by spaces or commas) as `<upstream>/<tag>`.
    static func tags(of headers: HTTPFields, upstream: String) -> [String] {
        var tags = ["\(upstream)/*"]
        for value in headers[values: cacheTag] {
            for tag in value.split(whereSeparator: { $0 == " " || $0 == "," }) where tag != "*" {
                tags.append("\(upstream)/\(tag)")
            }
        }
        return tags
    }

    /// `Waypoint-Position`, if it is a number.
    static func position(of headers: HTTPFields) -> Int64? {
        headers[position].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// The invalidation's metrics (no-ops without a factory), created once.
struct InvalidationMetrics: Sendable {
    enum Reason: String, CaseIterable { case event, write, follower }

    /// `gateway_cache_purges_total{reason}` and `gateway_cache_purged_entries_total{reason}`.
    let counters: [String: (purges: Counter, entries: Counter)]
    /// `gateway_cache_storing`: 1 while answers are stored, 0 while the event follower is not live.
    let storing: Gauge?
    /// `gateway_cache_event_lag_seconds`: from an event's commit at its producer to its purge here.
    let lag: Gauge?

    init(factory: (any MetricsFactory)?) {
        var counters: [String: (purges: Counter, entries: Counter)] = [:]
        if let factory {
            for reason in Reason.allCases {
                let dimensions = [("reason", reason.rawValue)]
                counters[reason.rawValue] = (Counter(label: "gateway_cache_purges_total", dimensions: dimensions, factory: factory),
                                             Counter(label: "gateway_cache_purged_entries_total", dimensions: dimensions, factory: factory))
            }
        }
        self.counters = counters
        storing = factory.map { Gauge(label: "gateway_cache_storing", factory: $0) }
        lag = factory.map { Gauge(label: "gateway_cache_event_lag_seconds", factory: $0) }
    }

    func purged(_ entries: Int, reason: Reason) {
        guard let counter = counters[reason.rawValue] else { return }
        counter.purges.increment()
        counter.entries.increment(by: entries)
    }
}
