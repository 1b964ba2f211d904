import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit
import ServiceTesting
import Testing

@Suite("Cache: public catalogue reads, never credentials or user-specific answers")
struct CacheTests {
    /// A stand-in answering catalogue reads with a counter, so a cached answer is recognisable.
    static func counting(_ hits: Hits, headers: HTTPFields = [:], status: HTTPResponse.Status = .ok) -> StandIn {
        StandIn.custom { request in
            hits.add()
            var fields = headers
            fields[.contentType] = "application/json"
            return Response(status: status, headers: fields,
                            body: .init(byteBuffer: ByteBuffer(string: #"{"answer":\#(hits.value),"path":"\#(request.uri.path)"}"#)))
        }
    }

    @Test("which requests may use the cache: no credentials, no no-cache or no-store in any Cache-Control field, any case")
    func eligibility() {
        func fields(_ pairs: [(HTTPField.Name, String)]) -> HTTPFields {
            var fields = HTTPFields()
            for (name, value) in pairs { fields.append(HTTPField(name: name, value: value)) }
            return fields
        }
        #expect(CacheRules.isEligible(fields: fields([])))
        #expect(CacheRules.isEligible(fields: fields([(.cacheControl, "max-age=0"), (.accept, "application/json")])))
        #expect(CacheRules.isEligible(fields: fields([(.cacheControl, "no-transform, private")])))
        #expect(CacheRules.isEligible(fields: fields([(.cacheControl, "no-")])))
        for refused in ["no-cache", "No-Cache", "max-age=0, NO-STORE", "x=1,no-cache"] {
            #expect(!CacheRules.isEligible(fields: fields([(.cacheControl, refused)])), "\(refused)")
        }
        #expect(!CacheRules.isEligible(fields: fields([(.cacheControl, "max-age=5"), (.cacheControl, "no-store")])))
        #expect(!CacheRules.isEligible(fields: fields([(.authorization, "Bearer x")])))
        #expect(!CacheRules.isEligible(fields: fields([(.cookie, "a=b")])))
    }

    @Test("a public GET of tours, a tour, the map and destinations is served from the cache: miss, then hit with Age")
    func publicReadsAreCached() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits)]) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/tours?q=monaco", "/v1/tours/42", "/v1/tours/map", "/v1/destinations/popular"] {
                let before = hits.value
                let miss = try await gateway.send(.GET, path)
                #expect(miss.header("x-cache") == "miss", "\(path)")
                let hit = try await gateway.send(.GET, path)
                #expect(hit.status == 200)
                #expect(hit.header("x-cache") == "hit", "\(path)")
                #expect(hit.header("age").flatMap(Int.init) != nil)
                #expect(hit.text == miss.text)
                #expect(hit.header("x-request-id") != miss.header("x-request-id"), "per-request headers are not replayed")
                #expect(hits.value == before + 1, "\(path) reached the service twice")
            }
        }
    }

    @Test("requests with Authorization or cookies are never answered from the cache nor stored")
    func credentialsBypassTheCache() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits)]) { (gateway: GatewayHarness) async throws in
            let token = try await TokenForge.valid()
            _ = try await gateway.send(.GET, "/v1/tours/1")
            let withToken = try await gateway.send(.GET, "/v1/tours/1", headers: [("Authorization", "Bearer \(token)")])
            #expect(withToken.header("x-cache") == "miss")
            let withCookie = try await gateway.send(.GET, "/v1/tours/1", headers: [("Cookie", "session=1")])
            #expect(withCookie.header("x-cache") == "miss")
            #expect(hits.value == 3)
            // And an answer fetched with credentials was not stored for others.
            _ = try await gateway.send(.GET, "/v1/tours/2", headers: [("Authorization", "Bearer \(token)")])
            #expect(try await gateway.send(.GET, "/v1/tours/2").header("x-cache") == "miss")
        }
    }

    @Test("user-specific or failed answers are not stored: private, no-store, Set-Cookie, Vary: Authorization, non-200")
    func userSpecificAnswersAreNotStored() async throws {
        let cases: [(String, HTTPFields, HTTPResponse.Status)] = [
            ("private", [.cacheControl: "private, max-age=60"], .ok), ("no-store", [.cacheControl: "no-store"], .ok),
            ("set-cookie", [.setCookie: "a=b"], .ok), ("vary", [.vary: "Authorization"], .ok), ("404", [:], .notFound),
        ]
        for (name, headers, status) in cases {
            let hits = Hits()
            try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits, headers: headers, status: status)]) { (gateway: GatewayHarness) async throws in
                _ = try await gateway.send(.GET, "/v1/tours")
                let second = try await gateway.send(.GET, "/v1/tours")
                #expect(second.header("x-cache") == "miss", "\(name)")
            }
            #expect(hits.value == 2, "\(name)")
        }
    }

    @Test("the key is method, path, query with sorted parameters and Accept")
    func cacheKey() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits)]) { (gateway: GatewayHarness) async throws in
            _ = try await gateway.send(.GET, "/v1/tours?theme=food&city=krems")
            #expect(try await gateway.send(.GET, "/v1/tours?city=krems&theme=food").header("x-cache") == "hit")
            #expect(try await gateway.send(.GET, "/v1/tours?city=monaco&theme=food").header("x-cache") == "miss")
            #expect(try await gateway.send(.GET, "/v1/tours?theme=food&city=krems", headers: [("Accept", "application/geo+json")]).header("x-cache") == "miss")
        }
        #expect(hits.value == 3)
    }

    @Test("entries expire after the TTL; routes that are not catalogue reads carry no X-Cache")
    func ttlAndScope() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits)], configure: { $0.cacheTTL = .seconds(3) }) { (gateway: GatewayHarness) async throws in
            _ = try await gateway.send(.GET, "/v1/destinations")
            #expect(try await gateway.send(.GET, "/v1/destinations").header("x-cache") == "hit")
            try await Task.sleep(for: .milliseconds(3_200))
            #expect(try await gateway.send(.GET, "/v1/destinations").header("x-cache") == "miss")
            let notCacheable = try await gateway.send(.GET, "/v1/tours/1/reviews")
            #expect(notCacheable.header("x-cache") == nil)
            #expect(try await gateway.send(.POST, "/v1/tours").header("x-cache") == nil)
        }
    }

    @Test("/metrics shows what the cache holds: gateway_cache_entries and gateway_cache_bytes")
    func cacheGauges() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": Self.counting(hits)]) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/tours?q=a", "/v1/tours?q=b"] { _ = try await gateway.send(.GET, path) }
            // The copy is stored when the streamed body ends, just after the client got it.
            var metrics = ""
            for _ in 0..<50 {
                metrics = try await gateway.send(.GET, "/metrics").text
                if metrics.contains("gateway_cache_entries 2") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(metrics.contains("gateway_cache_entries 2"))
            let bytes = metrics.split(separator: "\n").first { $0.hasPrefix("gateway_cache_bytes ") }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect((bytes ?? 0) > Double(2 * ResponseCache.entryOverheadBytes))
        }
    }

    @Test("a stored body holds exactly its bytes (a ByteBuffer would round 10,001 up to 16,384), and is served whole")
    func storedBodiesAreExactlySized() {
        let network = ByteBuffer(repeating: 7, count: 10_001)
        let entry = CachedResponse(headers: [:], body: network, storedAt: .now, expiresAt: .now + .seconds(30))
        #expect(entry.bytes.count == 10_001)
        #expect(entry.bytes.capacity < 10_001 + 64, "capacity \(entry.bytes.capacity)")
        #expect(entry.body == network)
    }

    @Test("the store is bounded by entries and bytes, and oversized answers are not kept")
    func storeIsBounded() {
        let cache = ResponseCache(maximumEntries: 3, maximumBytes: 1_000, maximumEntryBytes: 400)
        func entry(_ size: Int) -> CachedResponse {
            CachedResponse(headers: [:], body: ByteBuffer(repeating: 0, count: size), storedAt: .now, expiresAt: .now + .seconds(30))
        }
        for index in 0..<5 { cache.store("k\(index)", entry(10)) }
        #expect(cache.usage.entries == 3)
        #expect(cache.lookup("k0") == nil && cache.lookup("k4") != nil, "the oldest go first")
        cache.store("big", entry(500))
        #expect(cache.lookup("big") == nil)
        for index in 0..<3 { cache.store("m\(index)", entry(390)) }
        #expect(cache.usage.bytes <= 1_000)
    }

    @Test("an entry costs its body, headers, key and bookkeeping; expired entries at the old end go when an answer is stored")
    func storeCostsAndExpiry() {
        let cache = ResponseCache(maximumEntries: 100, maximumBytes: 100_000, maximumEntryBytes: 10_000)
        let start = ContinuousClock.now
        func entry(_ size: Int, ttl: Int) -> CachedResponse {
            CachedResponse(headers: [.contentType: "application/json"], body: ByteBuffer(repeating: 1, count: size),
                           storedAt: start, expiresAt: start + .seconds(ttl))
        }
        cache.store("/v1/tours?a", entry(1_000, ttl: 30), now: start)
        let cost = ResponseCache.cost("/v1/tours?a", entry(1_000, ttl: 30))
        #expect(cost == 1_000 + "content-type".utf8.count + "application/json".utf8.count + "/v1/tours?a".utf8.count + ResponseCache.entryOverheadBytes)
        #expect(cache.usage.bytes == cost)
        cache.store("/v1/tours?b", entry(500, ttl: 60), now: start + .seconds(1))
        #expect(cache.usage.entries == 2)
        // 40 s later the first has expired, the second not: storing a third drops the first without a lookup of it.
        cache.store("/v1/tours?c", entry(200, ttl: 30), now: start + .seconds(40))
        #expect(cache.usage.entries == 2)
        #expect(cache.lookup("/v1/tours?b", now: start + .seconds(40)) != nil)
        #expect(cache.usage.bytes == ResponseCache.cost("/v1/tours?b", entry(500, ttl: 60)) + ResponseCache.cost("/v1/tours?c", entry(200, ttl: 30)))
    }
}
