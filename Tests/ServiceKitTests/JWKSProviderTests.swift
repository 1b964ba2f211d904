import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing

@Suite("JWKSProvider fetches, caches and refetches auth's keys")
struct JWKSProviderTests {
    func verifier(_ provider: JWKSProvider) -> AccessTokenVerifier {
        AccessTokenVerifier(keys: provider, issuer: TokenForge.issuer, audience: TokenForge.audience)
    }

    @Test("keys are fetched on first use and then served from the cache")
    func fetchesOnceThenCaches() async throws {
        let endpoint = JWKSEndpoint(keys: [.primary])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(port)/.well-known/jwks.json")
            let verifier = verifier(provider)
            for _ in 0..<3 {
                let token = try await TokenForge.valid()
                let identity = try await verifier.verify(token)
                #expect(identity.subject == "user-42")
            }
            #expect(endpoint.requests == 1)
            #expect(await provider.fetchCount == 1)
        }
    }

    @Test("the fetched keys are held for answers without waiting, until they are older than the maximum age")
    func holdsFetchedKeys() async throws {
        let endpoint = JWKSEndpoint(keys: [.primary])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(port)/.well-known/jwks.json", maximumAge: .seconds(2))
            #expect(provider.heldKey(for: TestSigningKey.primary.kid) == nil)
            let token = try await TokenForge.valid()
            let fetching = ContinuousClock.now
            _ = try await verifier(provider).verify(token)
            let held = provider.heldKey(for: TestSigningKey.primary.kid)
            // Held while fresh (a starved machine may take the whole maximum age to get here).
            if ContinuousClock.now - fetching < .milliseconds(1_800) {
                #expect(held?.der == TestSigningKey.primary.publicKey.derRepresentation)
            }
            #expect(provider.heldKey(for: TestSigningKey.rotated.kid) == nil)
            try await Task.sleep(for: .milliseconds(2_100))
            // Stale: the verifier asks the provider, which refreshes.
            #expect(provider.heldKey(for: TestSigningKey.primary.kid) == nil)
        }
    }

    @Test("a token with an unknown kid triggers a refetch that finds the rotated key")
    func refetchesOnUnknownKid() async throws {
        let endpoint = JWKSEndpoint(keys: [.primary])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(port)/.well-known/jwks.json", minimumRefetchInterval: .zero)
            let verifier = verifier(provider)
            _ = try await verifier.verify(try await TokenForge.valid())
            endpoint.publish([.primary, .rotated])
            let rotatedToken = try await TestSigningKey.rotated.sign(TokenForge.claims(subject: "user-rotated"))
            let identity = try await verifier.verify(rotatedToken)
            #expect(identity.subject == "user-rotated")
            #expect(endpoint.requests == 2)
        }
    }

    @Test("refetches on unknown kids are rate-limited to one per interval")
    func refetchIsRateLimited() async throws {
        let endpoint = JWKSEndpoint(keys: [.primary])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(port)/.well-known/jwks.json", minimumRefetchInterval: .seconds(10))
            let verifier = verifier(provider)
            _ = try await verifier.verify(try await TokenForge.valid())
            endpoint.publish([.primary, .rotated])
            let rotatedToken = try await TestSigningKey.rotated.sign(TokenForge.claims())
            for _ in 0..<5 {
                await #expect(throws: AccessTokenError.unknownKeyID(TestSigningKey.rotated.kid)) {
                    try await verifier.verify(rotatedToken)
                }
            }
            #expect(endpoint.requests == 1)
        }
    }

    @Test("concurrent first lookups share one fetch")
    func concurrentLookupsShareOneFetch() async throws {
        let endpoint = JWKSEndpoint(keys: [.primary])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(port)/.well-known/jwks.json")
            let token = try await TokenForge.valid()
            let verifier = verifier(provider)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { _ = try await verifier.verify(token) }
                }
                try await group.waitForAll()
            }
            #expect(endpoint.requests == 1)
        }
    }

    @Test("an unreachable key set is 503, not 401, so clients keep their tokens")
    func unreachableKeySetIs503() async throws {
        // Port 9 (discard) is closed on loopback: the fetch fails fast.
        let provider = JWKSProvider(url: "http://127.0.0.1:9/.well-known/jwks.json", fetchTimeout: .seconds(2))
        let token = try await TokenForge.valid()
        let verifier = verifier(provider)
        await #expect(throws: AccessTokenError.keysUnavailable) { try await verifier.verify(token) }
        try await TestApplication.make(keySource: provider).test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] != nil)
        }
    }
}
