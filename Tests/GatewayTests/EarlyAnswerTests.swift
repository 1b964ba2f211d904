import AsyncHTTPClient
import Foundation
import Gateway
import Hummingbird
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A service that answers before it has read the whole request body — 401 to an anonymous upload, 403, 413 — used to
/// stop the gateway: the upload task kept reading the client's connection while the server read on for the next
/// request (NIO: "only allow a single Iterator"). Every interleaving of body, early answer, client abort and upstream
/// close must leave the gateway answering, with no relay left reading.
@Suite("Early answers: the upstream answers or closes before the upload is done, the client aborts — the gateway stays up")
struct EarlyAnswerTests {
    /// How the upstream treats an upload.
    enum Upstream: CaseIterable, Sendable {
        /// 401 at once, reading nothing (its server drains the body).
        case rejectsAtOnce
        /// Reads 64 KiB, then 403.
        case rejectsAfterAPart
        /// Reads everything, then 201.
        case readsAll
    }

    /// A raw server that reads a little of each request, answers 401 and closes the connection.
    static func slammingServer() throws -> GarbageServer {
        let body = #"{"code":"unauthenticated"}"#
        return try GarbageServer(reply: "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }

    static func standIn(_ behaviour: Upstream) -> StandIn {
        StandIn.custom { request in
            switch behaviour {
            case .rejectsAtOnce:
                return Response(status: .unauthorized, headers: [.contentType: "application/problem+json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"code":"unauthenticated"}"#)))
            case .rejectsAfterAPart:
                var read = 0
                for try await chunk in request.body {
                    read += chunk.readableBytes
                    if read >= 64 * 1024 { break }
                }
                return Response(status: .forbidden, body: .init(byteBuffer: ByteBuffer(string: "no")))
            case .readsAll:
                var read = 0
                for try await chunk in request.body { read += chunk.readableBytes }
                return Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: "\(read)")))
            }
        }
    }

    /// Body sizes: below, around and above the HTTP client's and the server's buffers (the probe's 6 MiB has its own
    /// test; the whole suite shares two cores with every other suite, so the matrix stays at 2 MiB).
    static let sizes = [1, 64 * 1024, 256 * 1024, 2 << 20]

    /// Sends `size` bytes to `path` on a raw socket — whole, or only half before closing — and reads what comes back.
    static func upload(port: Int, path: String, size: Int, abortHalfway: Bool) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                guard let fd = try? RawSocket.connect(port: port, receiveTimeout: .seconds(20)) else {
                    continuation.resume(returning: nil)
                    return
                }
                defer { close(fd) }
                var sendTimeout = timeval(tv_sec: 20, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
                RawSocket.send(fd, "POST \(path) HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\n\r\n")
                let chunk = [UInt8](repeating: 0, count: 16 * 1024)
                var sent = 0
                let stop = abortHalfway ? size / 2 : size
                while sent < stop {
                    let count = min(chunk.count, stop - sent)
                    let written = chunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
                    if written <= 0 { break }  // the gateway answered and closed: fine
                    sent += written
                }
                if abortHalfway {
                    continuation.resume(returning: nil)
                    return
                }
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                    if let text = String(bytes: received, encoding: .utf8), text.contains("\r\n\r\n"), text.hasPrefix("HTTP/1.1") {
                        break
                    }
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }

    static func expectAlive(_ gateway: GatewayHarness) async throws {
        let live = try await gateway.send(.GET, "/health/live")
        #expect(live.status == 200)
        #expect(try await eventually(timeout: .seconds(60)) { gateway.app.requestBodiesInFlight == 0 },
                "a request body relay was left reading: \(gateway.app.requestBodiesInFlight)")
    }

    @Test("every upstream behaviour × body size × whole or aborted upload, concurrently: answered or closed, gateway alive",
          arguments: Upstream.allCases)
    func interleavings(_ behaviour: Upstream) async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": Self.standIn(behaviour)], configure: {
            $0.mediaMaxBodyBytes = 8 << 20
            // Aborted uploads make the HTTP client drop upstream connections; a pooled one may then fail a request —
            // an honest upstream failure, but this test is about the process staying up, not about the breaker.
            $0.circuitFailureThreshold = 1000
        }) { (gateway: GatewayHarness) async throws in
            try await withThrowingTaskGroup(of: (Int, Bool, String?).self) { group in
                for size in Self.sizes {
                    for abort in [false, true] {
                        group.addTask { (size, abort, await Self.upload(port: gateway.port, path: "/v1/media", size: size, abortHalfway: abort)) }
                    }
                }
                for try await (size, abort, answer) in group where !abort {
                    // A whole upload is answered with the upstream's status (the connection may close after a large one).
                    let expected = switch behaviour {
                    case .rejectsAtOnce: "HTTP/1.1 401"
                    case .rejectsAfterAPart: "HTTP/1.1 403"
                    case .readsAll: "HTTP/1.1 201"
                    }
                    if let answer, !answer.isEmpty {
                        #expect(answer.hasPrefix(expected), "size \(size): \(answer.prefix(60))")
                    }
                }
            }
            try await Self.expectAlive(gateway)
        }
    }

    @Test("the probe's request: 6 MiB POST /v1/media without a token, answered 401 at once — three times, then a normal request on the same gateway")
    func anonymousLargeUpload() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": Self.standIn(.rejectsAtOnce)], configure: {
            $0.mediaMaxBodyBytes = 8 << 20
        }) { (gateway: GatewayHarness) async throws in
            for _ in 0..<3 {
                let answer = try await gateway.send(.POST, "/v1/media", body: .bytes(ByteBuffer(repeating: 0, count: 6 << 20)))
                #expect(answer.status == 401)
            }
            try await Self.expectAlive(gateway)
        }
    }

    @Test("an upstream that reads a little, answers 401 and closes the connection mid-upload")
    func upstreamClosesMidUpload() async throws {
        let slammer = try Self.slammingServer()
        defer { slammer.stop() }
        try await GatewayHarness.run(configure: {
            $0.endpoints = ServiceEndpoints(baseURLs: ["tour-management": URL(string: "http://127.0.0.1:\(slammer.port)")!])
            $0.mediaMaxBodyBytes = 8 << 20
        }) { (gateway: GatewayHarness) async throws in
            await withTaskGroup(of: Void.self) { group in
                for size in Self.sizes {
                    for abort in [false, true] {
                        group.addTask { _ = await Self.upload(port: gateway.port, path: "/v1/media", size: size, abortHalfway: abort) }
                    }
                }
            }
            try await Self.expectAlive(gateway)
        }
    }

    /// The gateway's memory after a soak is measured on the real process in the end-to-end journey (`JourneyTests`);
    /// here, inside a test process shared with every other suite, only the relays are counted.
    @Test("a soak of mixed early answers and aborts leaves the gateway answering and no relay reading")
    func soak() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": Self.standIn(.rejectsAtOnce),
                                                 "analytics": Self.standIn(.rejectsAfterAPart)], configure: {
            $0.mediaMaxBodyBytes = 8 << 20
            $0.service.maxBodyBytes = 8 << 20
        }) { (gateway: GatewayHarness) async throws in
            for round in 0..<12 {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<8 {
                        let size = Self.sizes[(round + index) % Self.sizes.count]
                        let path = index % 2 == 0 ? "/v1/media" : "/v1/analytics/events"
                        group.addTask { _ = await Self.upload(port: gateway.port, path: path, size: size, abortHalfway: index % 3 == 0) }
                    }
                }
            }
            try await Self.expectAlive(gateway)
        }
    }
}

@Suite("Requests the HTTP parser refuses are answered as problems, and the server goes on")
struct MalformedRequestTests {
    @Test("a head with 100 KiB of header fields is 431 headers-too-large as problem+json; the connection closes; the gateway still answers")
    func oversizedHeaderIs431() async throws {
        try await GatewayHarness.run { (gateway: GatewayHarness) async throws in
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "GET /health/live HTTP/1.1\r\nHost: gateway\r\nX-Padding: \(String(repeating: "a", count: 100 * 1024))\r\n\r\n")
            let answer = try #require(await RawSocket.readUntilClosed(socket))
            #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(80))")
            #expect(answer.lowercased().contains("content-type: application/problem+json"))
            #expect(answer.lowercased().contains("x-content-type-options: nosniff"))
            #expect(answer.contains(#""code":"headers-too-large""#))
            #expect(try await gateway.send(.GET, "/health/live").status == 200)
        }
    }

    @Test("garbage after a valid request on the same connection: the request's answer first, then the 400 problem, then the close")
    func garbageAfterARequestIsAnsweredInOrder() async throws {
        try await GatewayHarness.run { (gateway: GatewayHarness) async throws in
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "GET /health/live HTTP/1.1\r\nHost: gateway\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            let answer = try #require(await RawSocket.readUntilClosed(socket))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(80))")
            let problem = try #require(answer.range(of: "HTTP/1.1 400"), "\(answer)")
            #expect(answer[problem.upperBound...].contains(#""code":"malformed-request""#))
            #expect(answer.components(separatedBy: "HTTP/1.1 ").count == 3, "two answers, not interleaved: \(answer)")
            #expect(try await gateway.send(.GET, "/health/live").status == 200)
        }
    }

    @Test("a request line that is not HTTP is 400 malformed-request as problem+json")
    func garbageIs400Problem() async throws {
        try await GatewayHarness.run { (gateway: GatewayHarness) async throws in
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "GET /health/live HTTP/1.1\r\nHost gateway\r\n\r\n")
            let answer = try #require(await RawSocket.readUntilClosed(socket))
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")
            #expect(answer.contains(#""code":"malformed-request""#))
            #expect(try await gateway.send(.GET, "/health/live").status == 200)
        }
    }
}
