import Foundation
import Gateway
import ServiceKit
import ServiceTesting
import Testing

@Suite("Client address: the TCP peer, or the client a trusted proxy names in X-Forwarded-For")
struct TrustedProxyTests {
    static func resolver(_ networks: String...) -> ClientAddressResolver {
        ClientAddressResolver(trustedProxies: networks.map { IPNetwork($0)! })
    }

    @Test("addresses and CIDR blocks parse (IPv4, IPv6, host bits cleared); anything else does not")
    func networks() throws {
        #expect(IPNetwork("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPNetwork("192.0.2.10")?.description == "192.0.2.10/32")
        #expect(IPNetwork("2001:db8::1/32")?.description == "2001:db8::/32")
        #expect(IPNetwork("::1")?.description == "::1/128")
        #expect(IPNetwork("0.0.0.0/0")?.description == "0.0.0.0/0")
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0/8", "example.com", "10.0.0.0/8/8", "1.2.3.4/ 8"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
        let network = try #require(IPNetwork("172.16.0.0/12"))
        #expect(network.contains([172, 31, 255, 255]))
        #expect(!network.contains([172, 32, 0, 0]))
        #expect(!network.contains(Array(repeating: 0, count: 16)), "an IPv6 address is never in an IPv4 network")
    }

    @Test("without trusted proxies, or from an untrusted peer, X-Forwarded-For is ignored")
    func untrustedPeer() {
        #expect(ClientAddressResolver(trustedProxies: []).resolve(peer: "203.0.113.7", forwardedFor: ["6.6.6.6"]) == "203.0.113.7")
        #expect(Self.resolver("10.0.0.0/8").resolve(peer: "203.0.113.7", forwardedFor: ["6.6.6.6"]) == "203.0.113.7")
        #expect(Self.resolver("10.0.0.0/8").resolve(peer: nil, forwardedFor: ["6.6.6.6"]) == "unknown")
    }

    @Test("from a trusted peer, the rightmost address that is not a trusted proxy is the client; spoofed entries left of it are never read")
    func trustedChain() {
        let resolver = Self.resolver("10.0.0.0/8", "2001:db8::/32")
        // The client sent its own "6.6.6.6"; the load balancer appended the address it saw.
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["6.6.6.6", "198.51.100.4"]) == "198.51.100.4")
        // Two proxies in a row, one of them IPv6.
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["198.51.100.4", "2001:db8::7", "10.9.9.9"]) == "198.51.100.4")
        // Every hop trusted: the leftmost is the client.
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["10.1.1.1", "10.2.2.2"]) == "10.1.1.1")
        // No header: the peer itself.
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: []) == "10.0.0.5")
        // Garbage ends the walk at the last trustworthy hop.
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["198.51.100.4", "unknown", "10.3.3.3"]) == "10.3.3.3")
        // Ports, brackets and IPv4-mapped IPv6 are read; addresses come out canonical (one client, one bucket).
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["198.51.100.4:5555"]) == "198.51.100.4")
        #expect(resolver.resolve(peer: "10.0.0.5", forwardedFor: ["[2001:DB9:0::1]:443"]) == "2001:db9::1")
        #expect(resolver.resolve(peer: "::ffff:10.0.0.5", forwardedFor: ["::ffff:198.51.100.4"]) == "198.51.100.4")
    }

    @Test("TRUSTED_PROXIES is read as a list; a bad entry stops start-up naming the key")
    func configuration() throws {
        let configuration = try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1 ,fd00::/8"])
        #expect(configuration.trustedProxies.map(\.description) == ["10.0.0.0/8", "192.0.2.1/32", "fd00::/8"])
        #expect(try GatewayConfiguration.fromEnvironment([:]).trustedProxies.isEmpty)
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8,lb.internal"])
        }
    }

    @Test("behind a trusted proxy: each forwarded client has its own rate-limit bucket, and the service is told who the client is")
    func behindTrustedProxy() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")],
                                     configure: { $0.ratePerMinute = 1; $0.cacheTTL = .zero; $0.trustedProxies = [IPNetwork("127.0.0.0/8")!] }) {
            (gateway: GatewayHarness) async throws in
            let first = try await gateway.send(.GET, "/v1/tours", headers: [("X-Forwarded-For", "6.6.6.6, 198.51.100.4")])
            #expect(first.status == 200)
            let headers = try first.json(Echo.self).headers
            #expect(headers["x-forwarded-for"] == "198.51.100.4")
            #expect(headers["forwarded"]?.hasPrefix("for=198.51.100.4;") == true)
            // Same client, another spoofed prefix: the same bucket, now empty.
            #expect(try await gateway.send(.GET, "/v1/tours", headers: [("X-Forwarded-For", "7.7.7.7, 198.51.100.4")]).status == 429)
            // Another client behind the same proxy: a bucket of its own.
            #expect(try await gateway.send(.GET, "/v1/tours", headers: [("X-Forwarded-For", "198.51.100.5")]).status == 200)
        }
    }

    @Test("without trusted proxies, a client's X-Forwarded-For buys it no new bucket")
    func notBehindProxy() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")],
                                     configure: { $0.ratePerMinute = 1; $0.cacheTTL = .zero }) { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.GET, "/v1/tours", headers: [("X-Forwarded-For", "198.51.100.4")]).status == 200)
            #expect(try await gateway.send(.GET, "/v1/tours", headers: [("X-Forwarded-For", "198.51.100.5")]).status == 429)
        }
    }
}
