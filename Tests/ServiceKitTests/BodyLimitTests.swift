import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceKit
import ServiceTesting
import Testing

@Suite("Request bodies are limited")
struct BodyLimitTests {
    @Test("a declared Content-Length above the limit is 413 before the body is read")
    func declaredLengthTooLarge() async throws {
        let app = try TestApplication.make(configuration: .test(maxBodyBytes: 1024))
        try await app.test(.router) { client in
            let body = String(repeating: "x", count: 2048)
            let response = try await client.execute(uri: "/v1/uploads", method: .post, body: .text(body))
            #expect(response.status == .contentTooLarge)
            #expect(try response.problem().code == "payload-too-large")
        }
    }

    @Test("a body at the limit is accepted")
    func bodyAtLimit() async throws {
        let app = try TestApplication.make(configuration: .test(maxBodyBytes: 1024))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/uploads", method: .post, body: .text(String(repeating: "x", count: 1024)))
            #expect(response.status == .ok)
            #expect(response.text == "1024")
        }
    }

    @Test("a JSON body above the limit is 413 when decoded")
    func decodedBodyTooLarge() async throws {
        let app = try TestApplication.make(configuration: .test(maxBodyBytes: 64))
        try await app.test(.router) { client in
            let body = #"{"title":"\#(String(repeating: "t", count: 200))"}"#
            let response = try await client.execute(uri: "/v1/tours", method: .post, body: .text(body))
            #expect(response.status == .contentTooLarge)
        }
    }

    @Test("a chunked body without Content-Length is cut off at the limit while streaming")
    func streamedBodyTooLarge() async throws {
        let limit = 16 * 1024
        try await LoopbackServer.run({ reportPort in
            try TestApplication.make(configuration: .test(maxBodyBytes: limit), onServerRunning: { reportPort($0.localAddress!.port!) })
        }) { port in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/uploads")
            request.method = .POST
            let chunks = (0..<8).map { _ in ByteBuffer(repeating: UInt8(ascii: "x"), count: 4 * 1024) }
            request.body = .stream(chunks.async, length: .unknown)
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.status.code == 413)
            let body = try await response.body.collect(upTo: 1 << 16)
            let problem = try JSONDecoder().decode(ProblemDocument.self, from: Data(body.readableBytesView))
            #expect(problem.code == "payload-too-large")
        }
    }

    @Test("a chunked body under the limit streams through")
    func streamedBodyUnderLimit() async throws {
        try await LoopbackServer.run({ reportPort in
            try TestApplication.make(configuration: .test(maxBodyBytes: 64 * 1024), onServerRunning: { reportPort($0.localAddress!.port!) })
        }) { port in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/uploads")
            request.method = .POST
            let chunks = (0..<4).map { _ in ByteBuffer(repeating: UInt8(ascii: "x"), count: 1000) }
            request.body = .stream(chunks.async, length: .unknown)
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.status.code == 200)
            #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "4000")
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence, for streamed request bodies.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
