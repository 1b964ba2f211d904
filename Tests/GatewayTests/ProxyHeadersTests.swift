import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit
import Testing

@Suite("Proxy: headers in both directions, request id and trace context")
struct ProxyHeadersTests {
    @Test("hop-by-hop headers are dropped; Range, If-None-Match and the rest pass; X-Forwarded-For and Forwarded name the client")
    func requestHeaders() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/media/abc", headers: [
                ("Range", "bytes=0-99"), ("If-None-Match", "\"v1\""), ("Accept-Language", "de"), ("X-Custom", "kept"),
                ("Connection", "keep-alive, X-Private-Hop"), ("X-Private-Hop", "secret"), ("Keep-Alive", "timeout=5"),
                ("Proxy-Authorization", "Basic c2VjcmV0"), ("TE", "trailers"), ("Upgrade", "h2c"),
                ("X-Forwarded-For", "6.6.6.6"), ("Forwarded", "for=6.6.6.6"),
            ])
            #expect(answer.status == 200)
            let headers = try answer.json(Echo.self).headers
            #expect(headers["range"] == "bytes=0-99")
            #expect(headers["if-none-match"] == "\"v1\"")
            #expect(headers["accept-language"] == "de")
            #expect(headers["x-custom"] == "kept")
            for dropped in ["x-private-hop", "keep-alive", "proxy-authorization", "te", "upgrade"] {
                #expect(headers[dropped] == nil, "\(dropped) reached the service")
            }
            #expect(headers["x-forwarded-for"] == "127.0.0.1", "the client's own X-Forwarded-For is replaced, not trusted")
            #expect(headers["forwarded"]?.hasPrefix("for=127.0.0.1;host=") == true)
            #expect(headers["forwarded"]?.hasSuffix(";proto=http") == true)
            #expect(headers["x-forwarded-proto"] == "http")
            #expect(headers["x-request-id"] == answer.header("x-request-id"))
        }
    }

    @Test("hop-by-hop headers of the answer are dropped; end-to-end ones pass")
    func responseHeaders() async throws {
        let standIn = StandIn.custom { _ in
            Response(status: .ok, headers: [.eTag: "\"abc\"", .contentType: "text/plain", HTTPField.Name("Keep-Alive")!: "timeout=99",
                                            HTTPField.Name("X-Service")!: "tours", .contentRange: "bytes 0-1/10"],
                     body: .init(byteBuffer: ByteBuffer(string: "ok")))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": standIn]) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/media/abc")
            #expect(answer.status == 200)
            #expect(answer.text == "ok")
            #expect(answer.header("etag") == "\"abc\"")
            #expect(answer.header("x-service") == "tours")
            #expect(answer.header("content-range") == "bytes 0-1/10")
            #expect(answer.header("keep-alive") == nil)
        }
    }

    @Test("conditional and range answers pass through: 304 without a body, 206 with Content-Range, HEAD with its length")
    func conditionalAnswersPassThrough() async throws {
        let standIn = StandIn.custom { request in
            if request.headers[.ifNoneMatch] == "\"v7\"" { return Response(status: .notModified, headers: [.eTag: "\"v7\""]) }
            if request.headers[.range] == "bytes=0-3" {
                return Response(status: .partialContent, headers: [.contentRange: "bytes 0-3/10"], body: .init(byteBuffer: ByteBuffer(string: "0123")))
            }
            return Response(status: .ok, headers: [.eTag: "\"v7\""], body: .init(byteBuffer: ByteBuffer(string: "0123456789")))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": standIn]) { (gateway: GatewayHarness) async throws in
            let notModified = try await gateway.send(.GET, "/v1/media/abc", headers: [("If-None-Match", "\"v7\"")])
            #expect(notModified.status == 304)
            #expect(notModified.body.readableBytes == 0)
            #expect(notModified.header("etag") == "\"v7\"")
            let partial = try await gateway.send(.GET, "/v1/media/abc", headers: [("Range", "bytes=0-3")])
            #expect(partial.status == 206)
            #expect(partial.text == "0123")
            #expect(partial.header("content-range") == "bytes 0-3/10")
            let head = try await gateway.send(.HEAD, "/v1/media/abc")
            #expect(head.status == 200)
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test("a caller's X-Request-Id and traceparent continue through the gateway, in the answer, upstream and the access log")
    func requestIdAndTraceAreContinued() async throws {
        let logs = LogLines()
        let traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], logSink: logs) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/destinations", headers: [
                ("X-Request-Id", "client-req-1"), ("traceparent", "00-\(traceId)-00f067aa0ba902b7-01"),
            ])
            #expect(answer.header("x-request-id") == "client-req-1")
            let responseTrace = try #require(answer.header("traceparent"))
            #expect(responseTrace.hasPrefix("00-\(traceId)-"))
            #expect(!responseTrace.contains("00f067aa0ba902b7"), "the gateway's span is a new one")
            let upstream = try answer.json(Echo.self).headers
            #expect(upstream["x-request-id"] == "client-req-1")
            #expect(upstream["traceparent"]?.hasPrefix("00-\(traceId)-") == true)
            #expect(upstream["traceparent"] != responseTrace, "the upstream call is a child span")
            let access = try #require(logs.entries("access").first)
            let metadata = try #require(access["metadata"] as? [String: Any])
            #expect(metadata["request_id"] as? String == "client-req-1")
            #expect(metadata["trace_id"] as? String == traceId)
            #expect(metadata["traceparent"] as? String == responseTrace)
            #expect(metadata["http_status"] as? String == "200")
            #expect(metadata["route"] as? String == "/v1/destinations/*")
            #expect(metadata["upstream"] as? String == "tour-management")
        }
    }

    @Test("without incoming ids the gateway generates them, and the same ids are in the answer and the log line")
    func idsAreGenerated() async throws {
        let logs = LogLines()
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], logSink: logs) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/tours/7/stops")
            let requestId = try #require(answer.header("x-request-id"))
            let traceparent = try #require(answer.header("traceparent"))
            let traceId = traceparent.split(separator: "-")[1]
            let upstream = try answer.json(Echo.self).headers
            #expect(upstream["x-request-id"] == requestId)
            #expect(upstream["traceparent"]?.split(separator: "-")[1] == traceId)
            let metadata = try #require(logs.entries("access").first?["metadata"] as? [String: Any])
            #expect(metadata["request_id"] as? String == requestId)
            #expect(metadata["trace_id"] as? String == String(traceId))
        }
    }

    @Test("probes (/health/live, /health/ready, /metrics) leave no info line in the access log; requests do")
    func probesAreNotLoggedAtInfo() async throws {
        let logs = LogLines()
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], logSink: logs) { (gateway: GatewayHarness) async throws in
            for path in ["/health/live", "/health/ready", "/metrics", "/health/ready"] { _ = try await gateway.send(.GET, path) }
            _ = try await gateway.send(.GET, "/v1/tours/7")
            let paths = logs.entries("access").compactMap { ($0["metadata"] as? [String: Any])?["http_path"] as? String }
            #expect(paths == ["/v1/tours/7"], "\(paths)")
        }
    }
}
