import Foundation
import Gateway
import Hummingbird
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

/// A service that runs as several instances (navigation scales out): `WAYPOINT_GATEWAY_<SERVICE>_URLS` lists them, the
/// gateway balances round-robin, and an instance whose circuit opens is skipped until it recovers.
@Suite("gateway: several instances of one service")
struct InstanceBalancingTests {
    @Test("requests alternate between two instances; a failing one is skipped once its circuit opens; readiness needs one")
    func roundRobin() async throws {
        let first = Hits(), second = Hits()
        let secondBroken = Flag()
        let a = StandIn.custom { request in
            if request.uri.path != "/health/ready" { first.add() }
            return Response(status: .ok)
        }
        let b = StandIn.custom { request in
            if request.uri.path != "/health/ready" { second.add() }
            return Response(status: secondBroken.isSet ? .serviceUnavailable : .ok)
        }
        try await GatewayHarness.run(upstreams: ["navigation": a, "navigation-b": b], configure: { configuration in
            configuration.instances["navigation"] = [configuration.endpoints.baseURL(of: "navigation")!,
                                                     configuration.endpoints.baseURL(of: "navigation-b")!]
            configuration.circuitFailureThreshold = 2
            // Open for a minute from the first opening: a loaded machine must not see the half-open probe mid-test.
            configuration.circuitOpenDuration = .seconds(60)
            configuration.circuitInitialOpenDuration = .seconds(60)
        }) { (gateway: GatewayHarness) async throws in
            #expect(gateway.app.upstreams.instances["navigation"]?.count == 2)
            for _ in 0..<10 { #expect(try await gateway.send(.POST, "/v1/plans").status == 200) }
            #expect(first.value == 5 && second.value == 5, "round-robin: \(first.value) / \(second.value)")
            secondBroken.set()
            var failed = 0
            for _ in 0..<20 where try await gateway.send(.POST, "/v1/plans").status != 200 { failed += 1 }
            #expect(failed == 2, "two failures open the second instance's circuit; then the first takes every request")
            #expect(second.value == 7)
            #expect(first.value == 23)
            let ready = try await gateway.send(.GET, "/health/ready")
            #expect(ready.status == 200 || ready.status == 503)
        }
    }

    @Test("WAYPOINT_GATEWAY_NAVIGATION_URLS lists the instances; a bad entry names the key")
    func configuration() throws {
        let configuration = try GatewayConfiguration.fromEnvironment([
            "WAYPOINT_GATEWAY_NAVIGATION_URLS": "http://127.0.0.1:8084, http://127.0.0.1:8094/",
        ])
        #expect(configuration.instanceURLs(of: "navigation").map(\.absoluteString) == ["http://127.0.0.1:8084", "http://127.0.0.1:8094/"])
        #expect(configuration.instanceURLs(of: "auth").map(\.absoluteString) == ["http://127.0.0.1:8081"])
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.fromEnvironment(["WAYPOINT_GATEWAY_NAVIGATION_URLS": "http://127.0.0.1:8084,ftp://x"])
        }
    }
}
