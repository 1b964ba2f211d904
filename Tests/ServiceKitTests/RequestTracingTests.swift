import HTTPTypes
import HummingbirdTesting
import ServiceKit
import Testing

@Suite("Request id and W3C trace context")
struct RequestTracingTests {
    @Test("without headers a request id and a new trace are generated and returned")
    func generated() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/trace", method: .get)
            let echo = try response.json(TraceEcho.self)
            #expect(!echo.requestId.isEmpty)
            #expect(response.headers[ServiceHeaders.requestID] == echo.requestId)
            #expect(response.headers[ServiceHeaders.traceparent] == echo.traceparent)
            #expect(TraceContext.parse(echo.traceparent) != nil)
            #expect(echo.parentSpanId == nil)
        }
    }

    @Test("an incoming request id and traceparent are continued with a child span")
    func propagated() async throws {
        let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        try await TestApplication.make().test(.router) { client in
            let headers: HTTPFields = [ServiceHeaders.requestID: "req-123.abc", ServiceHeaders.traceparent: incoming]
            let response = try await client.execute(uri: "/v1/trace", method: .get, headers: headers)
            let echo = try response.json(TraceEcho.self)
            #expect(echo.requestId == "req-123.abc")
            #expect(response.headers[ServiceHeaders.requestID] == "req-123.abc")
            let trace = try #require(TraceContext.parse(echo.traceparent))
            #expect(trace.traceId == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(trace.spanId != "00f067aa0ba902b7")
            #expect(echo.parentSpanId == "00f067aa0ba902b7")
            #expect(response.headers[ServiceHeaders.traceparent] == echo.traceparent)
        }
    }

    @Test("an invalid traceparent and an unsafe request id are replaced")
    func invalidReplaced() async throws {
        try await TestApplication.make().test(.router) { client in
            let headers: HTTPFields = [ServiceHeaders.requestID: "bad id\"{}", ServiceHeaders.traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01"]
            let response = try await client.execute(uri: "/v1/trace", method: .get, headers: headers)
            let echo = try response.json(TraceEcho.self)
            #expect(echo.requestId != "bad id\"{}")
            #expect(echo.parentSpanId == nil)
            #expect(!echo.traceparent.contains("00000000000000000000000000000000"))
        }
    }

    @Test("error responses carry the request id and traceparent too")
    func errorResponsesStamped() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/nowhere", method: .get, headers: [ServiceHeaders.requestID: "trace-me"])
            #expect(response.status == .notFound)
            #expect(response.headers[ServiceHeaders.requestID] == "trace-me")
            #expect(try response.problem().requestId == "trace-me")
            #expect(response.headers[ServiceHeaders.traceparent] != nil)
        }
    }

    @Test(
        "traceparent parsing follows W3C level 1",
        arguments: [
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true),
            ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", false),
            ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false),
            ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false),
            ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", false),
            ("garbage", false),
        ]
    )
    func parsing(header: String, valid: Bool) {
        #expect((TraceContext.parse(header) != nil) == valid)
    }

    @Test("generated ids are lower-case hex of the right length, never all zeros, and differ")
    func generatedIds() throws {
        var seen = Set<String>()
        for _ in 0..<2_000 {
            let trace = TraceContext.newTrace()
            for (id, length) in [(trace.traceId, 32), (trace.spanId, 16), (trace.child().spanId, 16)] {
                #expect(id.utf8.count == length)
                #expect(id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }, "\(id)")
                #expect(id.utf8.contains { $0 != UInt8(ascii: "0") })
            }
            seen.insert(trace.traceId)
            let parsed = try #require(TraceContext.parse(trace.traceparent))
            #expect(parsed.traceId == trace.traceId)
            #expect(parsed.spanId == trace.spanId)
        }
        #expect(seen.count == 2_000)
    }

    @Test("a continued trace keeps the trace id and flags and names the caller as parent")
    func continuing() {
        let trace = TraceContext.continuing("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
        #expect(trace.traceId == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.parentSpanId == "00f067aa0ba902b7")
        #expect(!trace.isSampled)
        #expect(trace.traceparent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(trace.traceparent.hasSuffix("-00"))
        #expect(trace.child().parentSpanId == trace.spanId)
    }
}
