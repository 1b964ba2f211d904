import AsyncHTTPClient
import Foundation
import Gateway
import HTTPTypes
import Messaging
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceKit
import ServiceTesting
import Testing

/// The proxy's fast path (`ProxyFastPath`): which requests it takes, that its answers are the router's, and that a
/// connection mixing both paths keeps its answers in order. (Every other gateway suite runs with it on, the default.)
@Suite("Proxy fast path: plain reads answered outside the router, same answers")
struct ProxyFastPathTests {
    /// What two gateways' answers must share: status, body, and every field but the per-request ones.
    struct Comparable: Equatable, CustomStringConvertible {
        let status: Int
        let fields: [String: String]
        let body: String

        /// Per request, or counted in seconds from when the request came (`Retry-After` of a 429 depends on how long
        /// the requests before it took: under a loaded test run two gateways differ by a second).
        static let perRequest: Set<String> = ["traceparent", "x-request-id", "age", "date", "ratelimit", "retry-after"]

        init(_ answer: Answer, body: String? = nil) {
            status = answer.status
            // A problem's request id is the request's (random unless the client named one).
            let body = body ?? answer.text.replacingOccurrences(of: #""requestId":"[^"]*""#, with: #""requestId":"…""#,
                                                                 options: .regularExpression)
            var fields: [String: String] = [:]
            for (name, value) in answer.headers where !Self.perRequest.contains(name.lowercased()) {
                fields[name.lowercased(), default: ""] += (fields[name.lowercased()] == nil ? "" : ", ") + value
            }
            self.fields = fields
            self.body = body
        }

        var description: String { "\(status) \(fields.sorted { $0.key < $1.key }) \(body.prefix(300))" }
    }

    /// The echo's body without the fields that differ per request (the child span the upstream gets).
    /// The gateway's own port (in `X-Forwarded-Host` and `Forwarded`) and the request id, when the client named none,
    /// differ between two gateways and two requests.
    static func echoBody(_ answer: Answer, port: Int) throws -> String {
        var echo = try answer.json(Echo.self)
        echo.headers["traceparent"] = nil
        if echo.headers["x-request-id"] != "req-fast-1" { echo.headers["x-request-id"] = nil }
        return "\(echo.service) \(echo.method) \(echo.path) \(echo.query ?? "") \(echo.bodyBytes) \(echo.headers.sorted { $0.key < $1.key })"
            .replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:GATEWAY")
    }

    /// A stand-in for tour-management: echoes media requests (with the size of their bodies), counts catalogue
    /// requests, answers 404 problems, a large body, and `/v1/media/body` with the request's body itself.
    static func upstream(_ catalogue: Hits) -> StandIn {
        StandIn.custom { request in
            let path = request.uri.path
            var request = request
            let received = try await request.collectBody(upTo: 1 << 20)
            if path == "/v1/media/body" {
                return Response(status: .ok, headers: [.contentType: request.headers[.contentType] ?? "application/octet-stream"],
                                body: .init(byteBuffer: received))
            }
            if path.hasPrefix("/v1/tours") || path.hasPrefix("/v1/destinations") {
                catalogue.add()
                return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=60"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"path":"\#(path)","query":"\#(request.uri.query ?? "")"}"#)))
            }
            if path == "/v1/media/missing" {
                return Response(status: .notFound, headers: [.contentType: "application/problem+json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"code":"not-found","status":404}"#)))
            }
            if path == "/v1/media/big" {
                // 256 KiB: streamed and flushed per chunk, not written at once.
                return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                                body: .init(byteBuffer: ByteBuffer(repeating: 0x61, count: 256 << 10)))
            }
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName, default: ""] += (headers[field.name.canonicalName] == nil ? "" : ", ") + field.value }
            let echo = Echo(service: "tour-management", method: request.method.rawValue, path: path, query: request.uri.query,
                            headers: headers, bodyBytes: received.readableBytes)
            return Response(status: .ok, headers: [.contentType: "application/json", .eTag: "\"e1\""],
                            body: .init(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(echo))))
        }
    }

    /// The same sequence of requests through one gateway: what each answered (comparable form).
    static func sequence(fastPath: Bool) async throws -> (answers: [Comparable], taken: Int) {
        let catalogue = Hits()
        return try await GatewayHarness.run(upstreams: ["tour-management": upstream(catalogue)], configure: {
            $0.proxyFastPath = fastPath
            $0.corsOrigins = ["https://app.example"]
            // Limits around the fast path's 64 KiB: standard bodies up to 32 KiB, media uploads up to 96 KiB.
            $0.service.maxBodyBytes = 32 << 10
            $0.mediaMaxBodyBytes = 96 << 10
        }) { (gateway: GatewayHarness) async throws in
            var answers: [Comparable] = []
            let traced = [("X-Request-Id", "req-fast-1"), ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")]
            let echoed = try await gateway.send(.GET, "/v1/media/abc?x=1&y=2", headers: traced + [
                ("Origin", "https://app.example"), ("Accept-Language", "de"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"),
                ("X-Forwarded-For", "6.6.6.6"),
            ])
            #expect(echoed.status == 200)
            #expect(echoed.header("x-request-id") == "req-fast-1")
            #expect(echoed.header("traceparent")?.hasPrefix("00-0af7651916cd43dd8448eb211c80319c-") == true)
            answers.append(Comparable(echoed, body: try echoBody(echoed, port: gateway.port)))
            let other = try await gateway.send(.GET, "/v1/media/abc", headers: [("Origin", "https://evil.example")])
            answers.append(Comparable(other, body: try echoBody(other, port: gateway.port)))
            answers.append(Comparable(try await gateway.send(.HEAD, "/v1/media/abc")))
            answers.append(Comparable(try await gateway.send(.GET, "/v1/media/missing")))
            let big = try await gateway.send(.GET, "/v1/media/big")
            #expect(big.body.readableBytes == 256 << 10)
            answers.append(Comparable(big))
            // The cache: a miss, a hit, a bypass; parameter order does not split it.
            for (path, headers) in [("/v1/tours?b=2&a=1", [(String, String)]()), ("/v1/tours?a=1&b=2", []),
                                    ("/v1/tours?a=1&b=2", [("Cache-Control", "no-cache")]), ("/v1/destinations", [])] {
                answers.append(Comparable(try await gateway.send(.GET, path, headers: headers)))
            }
            #expect(catalogue.value == 3, "miss, bypass, and the destinations miss reach the service; the hit does not")
            // Writes with small bodies (and none): the upstream sees the same body and framing either way.
            let json = [("Content-Type", "application/json")]
            for (method, path, body) in [(HTTPMethod.POST, "/v1/media/abc", "x"), (.PUT, "/v1/media/abc", String(repeating: "p", count: 20_000)),
                                         (.PATCH, "/v1/media/abc", #"{"a":1}"#), (.DELETE, "/v1/media/abc", nil), (.POST, "/v1/media/abc", nil),
                                         (.POST, "/v1/media", String(repeating: "m", count: 60_000))] {
                let answer = try await gateway.send(method, path, headers: json, body: body.map { .bytes(ByteBuffer(string: $0)) })
                #expect(answer.status == 200, "\(method) \(path)")
                answers.append(Comparable(answer, body: try echoBody(answer, port: gateway.port)))
            }
            let mirrored = try await gateway.send(.POST, "/v1/media/body", headers: json, body: .bytes(ByteBuffer(string: #"{"lat":48.41}"#)))
            #expect(mirrored.text == #"{"lat":48.41}"#)
            answers.append(Comparable(mirrored))
            // A write to the catalogue's service purges what the cache holds of it: the next read is a miss.
            answers.append(Comparable(try await gateway.send(.POST, "/v1/tours", headers: json, body: .bytes(ByteBuffer(string: "{}")))))
            let afterWrite = try await gateway.send(.GET, "/v1/tours?a=1&b=2")
            #expect(afterWrite.header("x-cache") == "miss")
            answers.append(Comparable(afterWrite))
            #expect(catalogue.value == 5, "the write and the read after it reach the service")
            // Not the fast path's: bodies over its 64 KiB (streamed) or over the route's limit (413, also under 64 KiB),
            // an unknown route, a hidden one, a gateway route, a preflight.
            let streamed = try await gateway.send(.POST, "/v1/media", headers: json, body: .bytes(ByteBuffer(repeating: 0x6d, count: 80_000)))
            #expect(try streamed.json(Echo.self).bodyBytes == 80_000)
            answers.append(Comparable(streamed, body: try echoBody(streamed, port: gateway.port)))
            for (method, path, bytes) in [(HTTPMethod.PUT, "/v1/media/abc", 40_000), (.POST, "/v1/media", 100_000)] {
                let refused = try await gateway.send(method, path, body: .bytes(ByteBuffer(repeating: 0x6d, count: bytes)))
                #expect(refused.status == 413, "\(path) \(bytes)")
                answers.append(Comparable(refused))
            }
            answers.append(Comparable(try await gateway.send(.GET, "/v1/nowhere")))
            answers.append(Comparable(try await gateway.send(.GET, "/v1/internal/x")))
            answers.append(Comparable(try await gateway.send(.OPTIONS, "/v1/media/abc", headers: [
                ("Origin", "https://app.example"), ("Access-Control-Request-Method", "GET"),
            ])))
            return (answers, gateway.app.fastPathRequests)
        }
    }

    @Test("plain reads and small writes take the fast path, and every answer — headers, CORS, cache and its purge, problems, bodies both ways — is the router's")
    func answersAreTheRouters() async throws {
        let fast = try await Self.sequence(fastPath: true)
        let router = try await Self.sequence(fastPath: false)
        #expect(fast.taken == 18, "five media reads, four catalogue reads, seven media writes, the catalogue write and the read after it")
        #expect(router.taken == 0)
        #expect(fast.answers.count == router.answers.count)
        for (index, (a, b)) in zip(fast.answers, router.answers).enumerated() {
            #expect(a == b, "answer \(index): fast path \(a) vs router \(b)")
        }
    }

    @Test("a token is verified by the router the first time; once remembered, its requests take the fast path; a bad one is the router's 401")
    func rememberedTokens() async throws {
        let token = try await TestSigningKey.primary.sign(TokenForge.claims())
        let expired = try await TestSigningKey.primary.sign(TokenForge.claims(issuedAt: Date().addingTimeInterval(-1000),
                                                                               expiresAt: Date().addingTimeInterval(-120)))
        try await GatewayHarness.run(upstreams: ["tour-management": Self.upstream(Hits())]) { (gateway: GatewayHarness) async throws in
            let first = try await gateway.send(.GET, "/v1/media/abc", headers: [("Authorization", "Bearer \(token)")])
            #expect(first.status == 200)
            #expect(gateway.app.fastPathRequests == 0)
            let second = try await gateway.send(.GET, "/v1/media/abc", headers: [("Authorization", "Bearer \(token)")])
            #expect(second.status == 200)
            #expect(gateway.app.fastPathRequests == 1)
            #expect(try second.json(Echo.self).headers["authorization"] == "Bearer \(token)")
            #expect(try Self.echoBody(first, port: gateway.port) == (try Self.echoBody(second, port: gateway.port)))
            for bad in ["Bearer \(expired)", "Bearer not-a-token", "Basic dXNlcjpwYXNz"] {
                let refused = try await gateway.send(.GET, "/v1/media/abc", headers: [("Authorization", bad)])
                #expect(refused.status == 401, "\(bad.prefix(12))")
                #expect(try refused.problem().status == 401)
            }
            #expect(gateway.app.fastPathRequests == 1)
        }
    }

    @Test("pipelined on one connection: fast, fast (a small body), router (a chunked body), router (Connection: close) — answered in order")
    func pipelinedRequestsStayInOrder() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            let fd = try RawSocket.connect(port: gateway.port)
            defer { close(fd) }
            RawSocket.send(fd, "GET /v1/media/one HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /v1/media/two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "POST /v1/media/three HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                + "GET /v1/media/four HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = try #require(await RawSocket.readUntilClosed(fd))
            let order = ["one", "two", "three", "four"].map { text.range(of: "\"path\":\"\\/v1\\/media\\/\($0)\"")?.lowerBound }
            #expect(order.allSatisfy { $0 != nil }, "\(text.prefix(2000))")
            let found = order.compactMap { $0 }
            #expect(found == found.sorted(), "answers out of order: \(text.prefix(2000))")
            #expect(text.components(separatedBy: "HTTP/1.1 200").count == 5)
            #expect(text.components(separatedBy: "\"bodyBytes\":5").count == 3, "both bodies reached the upstream whole")
            // The first two here; the chunked body is the router's, and the last came behind it, so the router took it too.
            #expect(gateway.app.fastPathRequests == 2)
        }
    }

    @Test("writes: a small body that arrives in pieces is collected and sent whole; a POST answered 503 is not sent again, a bodiless DELETE is")
    func writes() async throws {
        let flakyCalls = Hits()
        let upstream = StandIn.custom { request in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            if request.uri.path == "/v1/media/flaky" {
                flakyCalls.add()
                if flakyCalls.value <= 2 { return Response(status: .serviceUnavailable) }
            }
            return Response(status: .ok, body: .init(byteBuffer: body))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": upstream]) { (gateway: GatewayHarness) async throws in
            let fd = try RawSocket.connect(port: gateway.port)
            defer { close(fd) }
            RawSocket.send(fd, "POST /v1/media/abc HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
            try await Task.sleep(for: .milliseconds(100))
            RawSocket.send(fd, "world")
            RawSocket.send(fd, "GET /v1/media/abc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = try #require(await RawSocket.readUntilClosed(fd))
            #expect(text.contains("\r\n\r\nhelloworld"), "\(text.prefix(1000))")
            #expect(gateway.app.fastPathRequests == 1, "the POST (the GET with Connection: close is the router's)")

            let post = try await gateway.send(.POST, "/v1/media/flaky", body: .bytes(ByteBuffer(string: "once")))
            #expect(post.status == 503)
            #expect(flakyCalls.value == 1, "a write with a body is never sent twice")
            let delete = try await gateway.send(.DELETE, "/v1/media/flaky")
            #expect(delete.status == 200)
            #expect(flakyCalls.value == 3, "a bodiless DELETE is retried once after its 503")
            #expect(gateway.app.fastPathRequests == 3)
        }
    }

    @Test("rate limits: the fast path's 429 is the router's problem, with Retry-After and the rate-limit fields")
    func rateLimited() async throws {
        func refused(fastPath: Bool) async throws -> (Answer, Int) {
            try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], configure: {
                $0.ratePerMinute = 2
                $0.proxyFastPath = fastPath
            }) { (gateway: GatewayHarness) async throws in
                var last: Answer?
                for _ in 0..<3 { last = try await gateway.send(.GET, "/v1/media/abc") }
                return (last!, gateway.app.fastPathRequests)
            }
        }
        let (fast, taken) = try await refused(fastPath: true)
        let (router, _) = try await refused(fastPath: false)
        #expect(taken == 3)
        #expect(fast.status == 429)
        #expect(try fast.problem().code == "rate-limited")
        for answer in [fast, router] {
            #expect(answer.header("retry-after").flatMap(Int.init).map { (1...60).contains($0) } == true)
        }
        #expect(fast.header("ratelimit-policy") == "\"default\";q=2;w=60")
        #expect(Comparable(fast, body: try fast.problem().code) == Comparable(router, body: try router.problem().code))
        #expect(try fast.problem().requestId == fast.header("x-request-id"))
    }

    @Test("an upstream that is down: the fast path's 503 problem; one that answers 503 once is retried; the breaker opens")
    func upstreamFailures() async throws {
        let calls = Hits()
        let flaky = StandIn.custom { _ in
            calls.add()
            if calls.value == 1 { return Response(status: .serviceUnavailable) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "second")))
        }
        let closed = try closedPort()
        try await GatewayHarness.run(upstreams: ["tour-management": flaky], configure: {
            $0.endpoints = ServiceEndpoints(baseURLs: $0.endpoints.baseURLs.merging(
                ["navigation": URL(string: "http://127.0.0.1:\(closed)")!]) { $1 })
            $0.circuitInitialOpenDuration = .seconds(30)
        }) { (gateway: GatewayHarness) async throws in
            let retried = try await gateway.send(.GET, "/v1/media/abc")
            #expect(retried.status == 200)
            #expect(retried.text == "second")
            #expect(calls.value == 2)
            let down = try await gateway.send(.GET, "/v1/routes?from=1,2&to=3,4")
            #expect(down.status == 503)
            #expect(try down.problem().code == "service-unavailable")
            #expect(try down.problem().requestId == down.header("x-request-id"))
            #expect(down.header("x-cache") == nil)
            #expect(gateway.app.fastPathRequests == 2)
            let breaker = try #require(gateway.app.upstreams["navigation"]?.breaker)
            for _ in 0..<5 { _ = try await gateway.send(.GET, "/v1/routes") }
            #expect(breaker.state == .open)
            let open = try await gateway.send(.GET, "/v1/routes")
            #expect(open.status == 503)
            #expect(try open.problem().detail.contains("circuit open"))
        }
    }

    @Test("a client that goes away while its answer is on the way: the gateway answers the next requests")
    func clientGoesAway() async throws {
        let slow = StandIn.custom { _ in
            try await Task.sleep(for: .milliseconds(300))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "late")))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": slow]) { (gateway: GatewayHarness) async throws in
            for _ in 0..<3 {
                let fd = try RawSocket.connect(port: gateway.port)
                RawSocket.send(fd, "GET /v1/media/abc HTTP/1.1\r\nHost: x\r\n\r\n")
                try await Task.sleep(for: .milliseconds(50))
                close(fd)
            }
            let answer = try await gateway.send(.GET, "/v1/media/abc")
            #expect(answer.status == 200)
            #expect(answer.text == "late")
            #expect(gateway.app.fastPathRequests == 4)
        }
    }

    @Test("the fast path's access-log line has the router's fields")
    func accessLogLine() async throws {
        func line(fastPath: Bool) async throws -> [String: Any] {
            let logs = LogLines()
            try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], configure: {
                $0.proxyFastPath = fastPath
            }, logSink: logs) { (gateway: GatewayHarness) async throws in
                _ = try await gateway.send(.GET, "/v1/tours/42", headers: [("X-Request-Id", "log-1")])
            }
            return try #require(logs.entries("access").last)
        }
        let fast = try await line(fastPath: true)
        let router = try await line(fastPath: false)
        #expect(Set(fast.keys) == Set(router.keys).subtracting(["hb.request.id"]))
        for key in ["http_method", "http_path", "http_status", "route", "upstream", "client_ip", "cache", "request_id"] {
            #expect(String(describing: fast[key] ?? "-") == String(describing: router[key] ?? "-"), "\(key)")
        }
    }
}
