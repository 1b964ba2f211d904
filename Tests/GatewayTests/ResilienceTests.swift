import Foundation
import Gateway
import Hummingbird
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

@Suite("Resilience: timeouts, retries within a budget, circuit breakers, 502/503/504 problems")
struct ResilienceTests {
    @Test("a service that is down is 503 at once (well under the timeout), and its circuit opens after 5 failures")
    func downUpstreamOpensTheCircuit() async throws {
        let port = try closedPort()
        try await GatewayHarness.run(configure: { configuration in
            configuration.endpoints = ServiceEndpoints(baseURLs: ["tour-management": URL(string: "http://127.0.0.1:\(port)")!])
            configuration.upstreamTimeout = .seconds(10)
            // A first open period as long as the ceiling, so the refusal below is not a probe on a slow machine.
            configuration.circuitInitialOpenDuration = .seconds(30)
        }) { (gateway: GatewayHarness) async throws in
            let breaker = try #require(gateway.app.upstreams["tour-management"]?.breaker)
            // Refused at once, not after the 10 s timeout: the failures counted below are all `refused`, none `timeout`
            // (no wall-clock bound: test machines starve a process for seconds).
            for attempt in 1...5 {
                let answer = try await gateway.send(.POST, "/v1/tours")
                #expect(answer.status == 503, "attempt \(attempt)")
                let problem = try answer.problem()
                #expect(problem.code == "service-unavailable")
                #expect(!problem.detail.contains("circuit"))
                #expect(breaker.state == (attempt < 5 ? .closed : .open))
            }
            let refused = try await gateway.send(.GET, "/v1/tours")
            #expect(refused.status == 503)
            #expect(try refused.problem().detail.contains("circuit open"))
            #expect(refused.header("retry-after").flatMap(Int.init).map { (25...30).contains($0) } == true)
            let metrics = try await gateway.send(.GET, "/metrics")
            #expect(metrics.text.contains(#"gateway_circuit_open{upstream="tour-management"} 1"#))
            #expect(metrics.text.contains(#"gateway_upstream_failures_total{upstream="tour-management",kind="refused"} 5"#))
        }
    }

    @Test("a service that answers too slowly is 504 upstream-timeout after the configured timeout")
    func slowUpstreamIs504() async throws {
        let slow = StandIn.custom { _ in
            try await Task.sleep(for: .seconds(30))
            return Response(status: .ok)
        }
        try await GatewayHarness.run(upstreams: ["analytics": slow], configure: { $0.upstreamTimeouts["analytics"] = .milliseconds(300) }) { (gateway: GatewayHarness) async throws in
            let start = ContinuousClock.now
            let answer = try await gateway.send(.GET, "/v1/analytics/platform")
            let elapsed = ContinuousClock.now - start
            // 504 upstream-timeout: the timeout ended it, not the service's answer 30 s later (that would be a 200). Only
            // the lower bound is on the clock — a starved process makes calls slower, never faster.
            #expect(answer.status == 504)
            #expect(try answer.problem().code == "upstream-timeout")
            #expect(elapsed >= .milliseconds(250), "\(elapsed): before the timeout")
        }
    }

    @Test("a service answering garbage or closing the connection is 502 bad-gateway")
    func brokenUpstreamIs502() async throws {
        for reply in ["NOT HTTP AT ALL\r\n\r\n", ""] {
            let server = try GarbageServer(reply: reply)
            defer { server.stop() }
            try await GatewayHarness.run(configure: { configuration in
                configuration.endpoints = ServiceEndpoints(baseURLs: ["record-trip": URL(string: "http://127.0.0.1:\(server.port)")!])
            }) { (gateway: GatewayHarness) async throws in
                let answer = try await gateway.send(.POST, "/v1/trips")
                #expect(answer.status == 502, "reply \(reply.debugDescription)")
                #expect(try answer.problem().code == "bad-gateway")
            }
        }
    }

    @Test("an open circuit spares the service; after the open period one probe goes through and success closes it")
    func halfOpenProbeClosesTheCircuit() async throws {
        let hits = Hits()
        let healthy = Flag()
        let flaky = StandIn.custom { request in
            // The gateway's readiness checks of an open circuit (CircuitRecovery) are not calls the circuit spares.
            if request.uri.path != "/health/ready" { hits.add() }
            return Response(status: healthy.isSet ? .ok : .serviceUnavailable)
        }
        try await GatewayHarness.run(upstreams: ["navigation": flaky], configure: { $0.circuitOpenDuration = .seconds(3) }) { (gateway: GatewayHarness) async throws in
            for _ in 0..<5 { #expect(try await gateway.send(.POST, "/v1/plans").status == 503) }
            #expect(hits.value == 5)
            #expect(try await gateway.send(.POST, "/v1/plans").status == 503)
            #expect(hits.value == 5, "the open circuit answered without calling the service")
            healthy.set()
            try await Task.sleep(for: .milliseconds(3_200))
            #expect(try await gateway.send(.POST, "/v1/plans").status == 200)
            #expect(gateway.app.upstreams["navigation"]?.breaker.state == .closed)
            #expect(try await gateway.send(.POST, "/v1/plans").status == 200)
            #expect(hits.value == 7)
        }
    }

    @Test("open periods back off: 1 s first, doubled by each failed probe up to the configured ceiling; success resets")
    func openPeriodsBackOff() async throws {
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: .milliseconds(200), initialOpenDuration: .milliseconds(50))
        breaker.record(success: false, permission: breaker.acquire())
        #expect(breaker.currentOpenDuration == .milliseconds(50))
        var expected: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(200)]
        while !expected.isEmpty {
            try await Task.sleep(for: breaker.currentOpenDuration + .milliseconds(10))
            let probe = breaker.acquire()
            #expect(probe == .probe)
            breaker.record(success: false, permission: probe)
            #expect(breaker.currentOpenDuration == expected.removeFirst())
        }
        try await Task.sleep(for: .milliseconds(210))
        breaker.record(success: true, permission: breaker.acquire())
        #expect(breaker.state == .closed)
        breaker.record(success: false, permission: breaker.acquire())
        #expect(breaker.currentOpenDuration == .milliseconds(50), "a closed circuit starts over at the first period")
        #expect(CircuitBreaker(failureThreshold: 1).initialOpenDuration == .seconds(1))
        #expect(CircuitBreaker(failureThreshold: 1, openDuration: .milliseconds(100)).initialOpenDuration == .milliseconds(100))
    }

    @Test("a service that was down and reports ready is routed again at once, long before a 30 s open period ends")
    func readinessClosesTheCircuit() async throws {
        let healthy = Flag()
        let restarting = StandIn.custom { _ in Response(status: healthy.isSet ? .ok : .serviceUnavailable) }
        try await GatewayHarness.run(upstreams: ["navigation": restarting], configure: {
            $0.circuitOpenDuration = .seconds(30)
            $0.retryMinPerSecond = 0
            $0.retryBudgetPercent = 0
        }) { (gateway: GatewayHarness) async throws in
            for _ in 0..<5 { #expect(try await gateway.send(.POST, "/v1/plans").status == 503) }
            let breaker = try #require(gateway.app.upstreams["navigation"]?.breaker)
            #expect(breaker.state == .open)
            #expect(try await gateway.send(.POST, "/v1/plans").status == 503, "refused while open")
            healthy.set()
            // The readiness probe closes it within ~2 s; 25 s here only keeps a starved test machine from failing it, and
            // is still short of the 30 s open period it replaces.
            #expect(try await eventually(timeout: .seconds(25)) { breaker.state == .closed })
            #expect(try await gateway.send(.POST, "/v1/plans").status == 200)
        }
    }

    @Test("a failed half-open probe reopens the circuit; only one probe goes out at a time")
    func failedProbeReopens() async throws {
        let breaker = CircuitBreaker(failureThreshold: 2, openDuration: .milliseconds(100))
        for _ in 0..<2 { breaker.record(success: false, permission: breaker.acquire()) }
        #expect(breaker.state == .open)
        guard case .refused = breaker.acquire() else { Issue.record("an open circuit let a call through"); return }
        try await Task.sleep(for: .milliseconds(120))
        let probe = breaker.acquire()
        #expect(probe == .probe)
        guard case .refused = breaker.acquire() else { Issue.record("a second probe went out"); return }
        breaker.record(success: false, permission: probe)
        #expect(breaker.state == .open)
    }

    @Test("an idempotent GET is retried once on 503; a POST is not")
    func idempotentRequestsAreRetried() async throws {
        let hits = Hits()
        let onceUnavailable = StandIn.custom { request in
            hits.add()
            return Response(status: hits.value % 2 == 1 ? .serviceUnavailable : .ok)
        }
        try await GatewayHarness.run(upstreams: ["path-review": onceUnavailable], configure: { $0.retryMinPerSecond = 5 }) { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.GET, "/v1/paths").status == 200)
            #expect(hits.value == 2)
            #expect(try await gateway.send(.GET, "/metrics").text.contains(#"gateway_upstream_retries_total{upstream="path-review"} 1"#))
            #expect(try await gateway.send(.POST, "/v1/paths").status == 503)
            #expect(hits.value == 3)
        }
    }

    @Test("the retry budget allows a share of requests plus a floor, never a retry storm")
    func retryBudget() async throws {
        let budget = RetryBudget(percent: 10, minimumPerSecond: 0, capacity: 10)
        #expect(!budget.withdraw(), "no requests yet, no floor: no retries")
        for _ in 0..<10 { budget.deposit() }
        #expect(budget.withdraw(), "10 requests earn one retry")
        #expect(!budget.withdraw())
        for _ in 0..<1_000 { budget.deposit() }
        var retries = 0
        while budget.withdraw() { retries += 1 }
        #expect(retries == 10, "the balance is capped")
        let floor = RetryBudget(percent: 0, minimumPerSecond: 20, capacity: 10)
        while floor.withdraw() {}
        try await Task.sleep(for: .milliseconds(120))
        #expect(floor.withdraw(), "the floor refills with time")
    }
}
