import Foundation
@testable import Gateway
import Hummingbird
import Messaging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

/// The gateway's own upstream client (`Proxy/UpstreamConnectionPool.swift`, `UpstreamChannelHandler.swift`): keep-alive
/// connections per upstream and event loop, their cap and waiters, and every way a connection must leave the pool.
@Suite("Upstream connection pool: reuse, cap and waiters, closes, timeouts, no leaks")
struct UpstreamPoolTests {
    static func connections(_ server: KeepAliveServer, timeout: TimeAmount = .seconds(10), maximum: Int = 64,
                            idleTimeout: TimeAmount = .seconds(60)) -> UpstreamConnections {
        UpstreamConnections(target: UpstreamTarget(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!)!,
                            timeout: timeout, maximumPerLoop: maximum, idleTimeout: idleTimeout)
    }

    static func get(_ path: String, _ connections: UpstreamConnections, method: HTTPMethod = .GET, readWhole: Bool = true) -> UpstreamRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: connections.target.hostHeader)
        return UpstreamRequest(head: HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers),
                               body: nil, contentLength: nil, readSmallBodyWhole: readWhole,
                               replayable: [.GET, .HEAD, .PUT, .DELETE, .OPTIONS].contains(method))
    }

    /// The whole body of `response` as text.
    static func text(_ response: UpstreamResponse) async throws -> String {
        var bytes = ByteBuffer()
        for try await chunk in response.body { bytes.writeImmutableBuffer(chunk) }
        return String(buffer: bytes)
    }

    /// Totals over every loop's pool.
    static func totals(_ connections: UpstreamConnections) async -> (open: Int, idle: Int, waiting: Int, opened: Int) {
        var result = (open: 0, idle: 0, waiting: 0, opened: 0)
        for pool in connections.all {
            let statistics = await pool.statistics()
            result.open += statistics.open
            result.idle += statistics.idle
            result.waiting += statistics.waiting
            result.opened += statistics.opened
        }
        return result
    }

    @Test("sequential requests share one connection; the Host field names the upstream")
    func reuse() async throws {
        let server = try KeepAliveServer { path in .init(body: "answer to \(path)") }
        defer { server.stop() }
        let connections = Self.connections(server)
        for index in 0..<25 {
            let response = try await connections.execute(Self.get("/r/\(index)", connections))
            #expect(response.head.status == .ok)
            guard case .buffered = response.body else { Issue.record("a small answer of declared length is read whole"); continue }
            #expect(try await Self.text(response) == "answer to /r/\(index)")
        }
        #expect(server.accepted == 1)
        #expect(server.hosts.allSatisfy { $0 == "127.0.0.1:\(server.port)" })
        let totals = await Self.totals(connections)
        #expect(totals.opened == 1 && totals.open == 1 && totals.idle == 1)
        await connections.shutdown()
        // Counted by the pool (channels closed): in the whole suite's process the stand-in server's threads sometimes
        // did not see a close within 20 s (cause not found; alone they always do), so the pool's count is the check.
        #expect(try await eventually(timeout: .seconds(20)) { await Self.totals(connections).open == 0 }, "shutdown closes idle connections")
    }

    @Test("a request made on an event loop uses a connection on that loop (no hop between threads)")
    func callersLoop() async throws {
        let server = try KeepAliveServer { _ in .init() }
        defer { server.stop() }
        let connections = Self.connections(server)
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        for loop in loops {
            let status = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
                #expect(loop.inEventLoop)
                #expect(connections.current === connections.pool(on: loop))
                return try await connections.execute(Self.get("/", connections)).head.status
            }
            #expect(status == .ok)
            // The pool of `loop` made the connection, no other.
            let opened = try #require(await connections.pool(on: loop)?.statistics().opened)
            #expect(opened == 1)
        }
        #expect(await Self.totals(connections).opened == loops.count)
        await connections.shutdown()
    }

    @Test("at most the cap of connections per loop; requests beyond wait for a free one")
    func capAndWaiters() async throws {
        // Each answer takes a second, so the twelve calls queue for seconds: long enough to be seen on a loaded machine.
        let server = try KeepAliveServer { _ in .init(body: "slow", delay: .seconds(1)) }
        defer { server.stop() }
        let connections = Self.connections(server, maximum: 3)
        let pool = try #require(connections.pool(on: MultiThreadedEventLoopGroup.singleton.next()))
        let sawWaiters = Hits()
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<12 {
                group.addTask { try await Self.text(try await pool.execute(Self.get("/\(index)", connections))) }
            }
            group.addTask {
                if try await eventually(timeout: .seconds(20), { let statistics = await pool.statistics()
                    return statistics.waiting > 0 && statistics.open == 3 }) { sawWaiters.add() }
                return "slow"
            }
            for try await text in group { #expect(text == "slow") }
        }
        #expect(server.maximumOpen <= 3)
        #expect(server.requests == 12)
        #expect(sawWaiters.value == 1, "requests beyond the cap waited")
        let statistics = await pool.statistics()
        #expect(statistics.open <= 3 && statistics.waiting == 0)
        await connections.shutdown()
    }

    @Test("a waiter that gets no connection within the timeout fails as a timeout (504)")
    func waiterTimesOut() async throws {
        // A download that keeps flowing (a byte every 100 ms, never silent for the 1 s timeout) holds the only connection
        // for about ten seconds: long enough that a starved test process (the whole suite beside it on two cores) still
        // sends the waiter while it is held — with three seconds, the download once ended first.
        let server = try KeepAliveServer { path in
            path == "/drip" ? .init(body: String(repeating: "d", count: 100), chunkSize: 1, chunkDelay: .milliseconds(100)) : .init()
        }
        defer { server.stop() }
        let connections = Self.connections(server, timeout: .seconds(1), maximum: 1)
        let pool = try #require(connections.all.first)
        async let drip = Self.text(try await pool.execute(Self.get("/drip", connections)))
        #expect(try await eventually(timeout: .seconds(20)) { server.requests == 1 }, "the download holds the connection")
        await #expect(throws: UpstreamClientError.poolTimeout) { try await pool.execute(Self.get("/", connections)) }
        #expect(UpstreamFailure(UpstreamClientError.poolTimeout) == .timedOut)
        #expect(try await drip == String(repeating: "d", count: 100), "the download itself was not cut")
        #expect(try await pool.execute(Self.get("/", connections)).head.status == .ok)
        #expect(server.accepted == 1)
        await connections.shutdown()
    }

    @Test("Connection: close is honoured: the connection is not reused")
    func connectionClose() async throws {
        let server = try KeepAliveServer { _ in .init(body: "bye", close: true) }
        defer { server.stop() }
        let connections = Self.connections(server)
        let pool = try #require(connections.all.first)
        for _ in 0..<4 {
            #expect(try await Self.text(try await pool.execute(Self.get("/", connections))) == "bye")
        }
        #expect(server.accepted == 4)
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 })
        await connections.shutdown()
    }

    @Test("a connection the upstream closed while idle is replaced without an error, also when the close races the request")
    func closedWhileIdle() async throws {
        let server = try KeepAliveServer { _ in .init(body: "fine") }
        defer { server.stop() }
        let connections = Self.connections(server)
        let pool = try #require(connections.all.first)
        #expect(try await Self.text(try await pool.execute(Self.get("/", connections))) == "fine")
        server.closeIdleConnections()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await Self.text(try await pool.execute(Self.get("/", connections))) == "fine")
        #expect(server.accepted == 2)
        // The close still on its way when the next request takes the connection: sent again once, on a new one.
        for round in 0..<20 {
            server.closeIdleConnections()
            for method in [HTTPMethod.GET, .DELETE] {
                let response = try await pool.execute(Self.get("/race/\(round)", connections, method: method))
                #expect(response.head.status == .ok)
                _ = try await Self.text(response)
            }
        }
        #expect(await pool.statistics().open <= 1)
        await connections.shutdown()
    }

    @Test("an answer not read to its end is not returned to the pool; the next request gets a new connection")
    func abortedAnswerIsNotReused() async throws {
        let long = String(repeating: "x", count: 400_000)
        let server = try KeepAliveServer { path in
            path == "/long" ? .init(body: long, chunkSize: 8_192, chunkDelay: .milliseconds(2)) : .init(body: "short")
        }
        defer { server.stop() }
        let connections = Self.connections(server)
        let pool = try #require(connections.all.first)
        do {
            let response = try await pool.execute(Self.get("/long", connections))
            guard case .pooled(let stream) = response.body else { Issue.record("a chunked answer streams"); return }
            let iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() != nil)
            // The consumer goes away (a client that disconnected) before the end.
        }
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 }, "the half-read connection was closed")
        #expect(try await Self.text(try await pool.execute(Self.get("/", connections))) == "short")
        #expect(server.accepted == 2)
        // A streamed answer read to its end goes back to the pool.
        #expect(try await Self.text(try await pool.execute(Self.get("/long", connections))) == long)
        #expect(try await Self.text(try await pool.execute(Self.get("/", connections))) == "short")
        #expect(server.accepted == 2)
        await connections.shutdown()
    }

    @Test("a call cancelled before its answer (the client went away) closes its connection; a cancelled waiter leaves the queue")
    func cancelledCall() async throws {
        // The slow answer never comes within the test (both calls are cancelled); states are awaited, not slept for,
        // so a loaded machine only makes the test slower.
        let server = try KeepAliveServer { path in .init(delay: path == "/slow" ? .seconds(30) : .zero) }
        defer { server.stop() }
        let connections = Self.connections(server, maximum: 1)
        let pool = try #require(connections.all.first)
        let running = Task { try await pool.execute(Self.get("/slow", connections)) }
        #expect(try await eventually(timeout: .seconds(20)) { server.requests == 1 }, "the slow call reached the upstream")
        let waiting = Task { try await pool.execute(Self.get("/", connections)) }
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().waiting == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(await pool.statistics().waiting == 0)
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 }, "the connection with an answer pending was closed")
        #expect(try await pool.execute(Self.get("/", connections)).head.status == .ok)
        #expect(server.accepted == 2)
        await connections.shutdown()
    }

    @Test("an idle connection is closed after the idle timeout")
    func idleTimeout() async throws {
        let server = try KeepAliveServer { _ in .init() }
        defer { server.stop() }
        let connections = Self.connections(server, idleTimeout: .seconds(1))
        let pool = try #require(connections.all.first)
        let asked = ContinuousClock.now
        _ = try await Self.text(try await pool.execute(Self.get("/", connections)))
        let idle = await pool.statistics().idle
        // Idle until the timeout, which cannot have run out less than a second after the request was made (on a loaded
        // machine the check itself may come later, and then proves nothing).
        if ContinuousClock.now - asked < .milliseconds(900) { #expect(idle == 1) }
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 }, "the idle connection was closed")
        #expect(await pool.statistics().open == 0)
        _ = try await Self.text(try await pool.execute(Self.get("/", connections)))
        #expect(server.accepted == 2)
        await connections.shutdown()
    }

    @Test("a silent upstream times out (504) and its connection is discarded; a body that stops mid-way is cut")
    func timeouts() async throws {
        let server = try KeepAliveServer { path in
            switch path {
            // Answers far later than the 2 s timeout, so that a loaded machine cannot let them arrive first; and the
            // timeout is far longer than a prompt answer takes, so that a starved test process (the whole suite beside
            // it on two cores) does not time out the prompt requests: at 300 ms, `/stalls`' head or the last `/`
            // timed out under a full run's load.
            case "/silent": .init(delay: .seconds(30))
            case "/stalls": .init(body: String(repeating: "y", count: 200_000), chunkSize: 100_000, chunkDelay: .seconds(30))
            default: .init()
            }
        }
        defer { server.stop() }
        let connections = Self.connections(server, timeout: .seconds(2))
        let pool = try #require(connections.all.first)
        // The read timeout, not the answer 30 s later, ended the call: had the answer come first, the call would have
        // succeeded. (No wall-clock bound: a CI run starved this test process for 13 s.)
        await #expect(throws: UpstreamClientError.readTimeout) { try await pool.execute(Self.get("/silent", connections)) }
        #expect(UpstreamFailure(UpstreamClientError.readTimeout) == .timedOut)
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 }, "the timed-out connection was discarded")
        let response = try await pool.execute(Self.get("/stalls", connections))
        await #expect(throws: UpstreamClientError.readTimeout) { _ = try await Self.text(response) }
        #expect(try await eventually(timeout: .seconds(20)) { await pool.statistics().open == 0 })
        #expect(try await pool.execute(Self.get("/", connections)).head.status == .ok)
        await connections.shutdown()
    }

    @Test("a small body cut short gives the part that came and the cut; a refused connection is `refused`")
    func brokenAndRefused() async throws {
        let server = try KeepAliveServer { _ in .init(body: String(repeating: "z", count: 1_000), cutAfter: 300) }
        defer { server.stop() }
        let connections = Self.connections(server)
        let response = try await connections.execute(Self.get("/", connections))
        guard case .broken(let part, _) = response.body else { Issue.record("expected a broken body, got \(response.body)"); return }
        #expect(part.readableBytes == 300)
        await connections.shutdown()

        let port = try closedPort()
        let down = UpstreamConnections(target: UpstreamTarget(baseURL: URL(string: "http://127.0.0.1:\(port)")!)!, timeout: .seconds(5))
        do {
            _ = try await down.execute(Self.get("/", down))
            Issue.record("a closed port answered")
        } catch {
            #expect(UpstreamFailure(error) == .refused, "\(error)")
        }
        #expect(await Self.totals(down).open == 0)
    }

    @Test("a malformed answer is bad-gateway and its connection is closed")
    func malformed() async throws {
        let server = try GarbageServer(reply: "HTTP/1.1 abc nonsense\r\n\r\n")
        defer { server.stop() }
        let connections = UpstreamConnections(target: UpstreamTarget(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!)!,
                                              timeout: .seconds(5))
        do {
            _ = try await connections.execute(Self.get("/", connections))
            Issue.record("garbage was taken for an answer")
        } catch {
            #expect(UpstreamFailure(error) == .badGateway, "\(error)")
        }
        #expect(try await eventually(timeout: .seconds(20)) { await Self.totals(connections).open == 0 })
    }

    @Test("soak: concurrent requests, closes, aborts and timeouts leave at most the cap open and nothing waiting")
    func soak() async throws {
        let server = try KeepAliveServer { path in
            if path.hasPrefix("/close") { return .init(close: true) }
            if path.hasPrefix("/long") { return .init(body: String(repeating: "l", count: 100_000), chunkSize: 16_384) }
            if path.hasPrefix("/slow") { return .init(delay: .milliseconds(400)) }
            return .init(body: "ok")
        }
        defer { server.stop() }
        let cap = 8
        let connections = Self.connections(server, timeout: .milliseconds(250), maximum: cap)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<24 {
                group.addTask {
                    for index in 0..<40 {
                        let kind = (worker + index) % 10
                        let path = switch kind {
                        case 0: "/close"
                        case 1, 2: "/long"
                        case 3: "/slow"
                        default: "/ok"
                        }
                        do {
                            let response = try await connections.execute(Self.get(path, connections))
                            if kind == 2, case .pooled(let stream) = response.body {
                                let iterator = stream.makeAsyncIterator()
                                _ = try await iterator.next()  // then dropped: an aborted download
                            } else {
                                _ = try await Self.text(response)
                            }
                        } catch where UpstreamFailure(error) == .timedOut {
                            // Expected of /slow; of the others (a read, a wait for a connection, a connect) only on a
                            // starved machine (the suites run together).
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let loops = MultiThreadedEventLoopGroup.singleton.makeIterator().map { _ in 1 }.count
        #expect(try await eventually(timeout: .seconds(20)) {
            let totals = await Self.totals(connections)
            return totals.open <= cap * loops && totals.waiting == 0 && totals.open == totals.idle
        }, "every connection idle or closed, none waiting")
        #expect(try await eventually(timeout: .seconds(20)) { server.openConnections <= cap * loops })
        await connections.shutdown()
        #expect(try await eventually(timeout: .seconds(20)) { await Self.totals(connections).open == 0 }, "no connection leaked past shutdown")
    }

    @Test("through the gateway: a timed-out upstream is 504 and the next request is answered on a new connection")
    func gatewayTimeoutDiscardsConnection() async throws {
        let server = try KeepAliveServer { path in
            path.hasPrefix("/v1/analytics/slow") ? .init(delay: .seconds(30)) : .init(headers: [("Content-Type", "text/plain")], body: "fast")
        }
        defer { server.stop() }
        try await GatewayHarness.run(configure: { configuration in
            configuration.endpoints = ServiceEndpoints(baseURLs: ["analytics": URL(string: "http://127.0.0.1:\(server.port)")!])
            // Far below the slow answer's 30 s, far above what a fast answer takes on a starved CI machine (300 ms was not:
            // a fast request timed out there too).
            configuration.upstreamTimeouts["analytics"] = .seconds(5)
        }) { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.GET, "/v1/analytics/fast").text == "fast")
            let timedOut = try await gateway.send(.GET, "/v1/analytics/slow")
            #expect(timedOut.status == 504)
            #expect(try timedOut.problem().code == "upstream-timeout")
            let connections = try #require(gateway.app.upstreams["analytics"]?.connections)
            #expect(try await eventually(timeout: .seconds(20)) { let totals = await Self.totals(connections); return totals.open == totals.idle },
                    "the timed-out connection was closed, not left busy or returned")
            #expect(try await gateway.send(.GET, "/v1/analytics/fast").text == "fast")
            let metrics = try await gateway.send(.GET, "/metrics").text
            #expect(metrics.contains(#"gateway_upstream_failures_total{upstream="analytics",kind="timeout"} 1"#))
        }
    }
}
