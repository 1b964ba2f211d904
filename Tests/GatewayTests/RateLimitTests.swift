import Foundation
import Gateway
import ServiceKit
import ServiceTesting
import Testing

@Suite("Rate limits: token buckets per IP on /v1/auth, per user elsewhere, IETF draft headers")
struct RateLimitTests {
    @Test("over the limit: 429 rate-limited with Retry-After, RateLimit-Policy and RateLimit, and the service is spared")
    func overTheLimitIs429() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management", hits: hits)],
                                     configure: { $0.ratePerMinute = 3; $0.cacheTTL = .zero }) { (gateway: GatewayHarness) async throws in
            for remaining in [2, 1, 0] {
                let answer = try await gateway.send(.GET, "/v1/tours")
                #expect(answer.status == 200)
                #expect(answer.header("ratelimit-policy") == #""default";q=3;w=60"#)
                #expect(answer.header("ratelimit")?.hasPrefix(#""default";r=\#(remaining);t="#) == true, "\(answer.header("ratelimit") ?? "-")")
            }
            let refused = try await gateway.send(.GET, "/v1/tours")
            #expect(refused.status == 429)
            #expect(try refused.problem().code == "rate-limited")
            let retryAfter = try #require(refused.header("retry-after").flatMap(Int.init))
            #expect((1...20).contains(retryAfter))
            #expect(refused.header("ratelimit-policy") == #""default";q=3;w=60"#)
            #expect(refused.header("ratelimit")?.hasPrefix(#""default";r=0;t="#) == true)
        }
        #expect(hits.value == 3)
    }

    @Test("/v1/auth has its own, stricter per-IP quota")
    func authRoutesHaveTheirOwnQuota() async throws {
        try await GatewayHarness.run(upstreams: ["auth": .echo("auth"), "tour-management": .echo("tour-management")],
                                     configure: { $0.authRatePerMinute = 2; $0.ratePerMinute = 50 }) { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.POST, "/v1/auth/login").status == 200)
            let second = try await gateway.send(.POST, "/v1/auth/login")
            #expect(second.header("ratelimit-policy") == #""auth";q=2;w=60"#)
            #expect(try await gateway.send(.POST, "/v1/auth/refresh").status == 429)
            // Other routes still have their quota: buckets are per policy.
            let other = try await gateway.send(.GET, "/v1/destinations")
            #expect(other.status == 200)
            #expect(other.header("ratelimit-policy") == #""default";q=50;w=60"#)
        }
    }

    @Test("each signed-in user has a bucket of their own; anonymous callers share their IP's")
    func usersHaveTheirOwnBuckets() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")],
                                     configure: { $0.ratePerMinute = 2; $0.cacheTTL = .zero }) { (gateway: GatewayHarness) async throws in
            let ada = try await TestSigningKey.primary.sign(TokenForge.claims(subject: "ada"))
            let bob = try await TestSigningKey.primary.sign(TokenForge.claims(subject: "bob"))
            for _ in 0..<2 { #expect(try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(ada)")]).status == 200) }
            #expect(try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(ada)")]).status == 429)
            #expect(try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(bob)")]).status == 200)
            for _ in 0..<2 { #expect(try await gateway.send(.GET, "/v1/tours").status == 200) }
            #expect(try await gateway.send(.GET, "/v1/tours").status == 429)
        }
    }

    @Test("buckets refill over time: one per window / quota")
    func bucketsRefill() async throws {
        let limiter = RateLimiter(policy: .init(name: "default", quota: 60, windowSeconds: 1))
        for _ in 0..<60 { #expect(limiter.consume("ip:1").allowed) }
        let refused = limiter.consume("ip:1")
        #expect(!refused.allowed)
        #expect(refused.retryAfterSeconds == 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(limiter.consume("ip:1").allowed, "60 per second refills one every ~17 ms")
    }

    @Test("memory is bounded: idle buckets are evicted and the number of keys never passes the maximum")
    func bucketsAreBounded() async throws {
        let limiter = RateLimiter(policy: .init(name: "default", quota: 10, windowSeconds: 1), maximumKeys: 100)
        for client in 0..<1_000 { _ = limiter.consume("ip:10.0.\(client / 256).\(client % 256)") }
        #expect(limiter.keyCount <= 100)
        try await Task.sleep(for: .milliseconds(1100))
        _ = limiter.consume("ip:fresh")
        #expect(limiter.keyCount == 1, "buckets idle for a whole window are full again and dropped")
    }
}
