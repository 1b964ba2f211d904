import AsyncHTTPClient
import Foundation
import Gateway
import Hummingbird
import NIOCore
import ServiceTesting
import Synchronization
import Testing

/// A one-shot flag set by one side of a stream and awaited by the other.
final class Flag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var isSet: Bool { state.withLock { $0 } }
}

@Suite("Proxy: bodies stream both ways, never collected whole")
struct StreamingTests {
    static let chunk = 64 * 1024
    static let total = 8 * 1024 * 1024

    @Test("an 8 MiB upload streams: the service has its first bytes before the client has sent the rest")
    func uploadStreams() async throws {
        let upstreamSawBytes = Flag()
        let received = Mutex(0)
        let standIn = StandIn.custom { request in
            for try await chunk in request.body {
                upstreamSawBytes.set()
                received.withLock { $0 += chunk.readableBytes }
            }
            return Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: "\(received.withLock { $0 })")))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": standIn], configure: { $0.mediaMaxBodyBytes = 16 << 20 }) { (gateway: GatewayHarness) async throws in
            let sentBeforeUpstreamSawBytes = Mutex(true)
            let (body, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
            let producer = Task {
                continuation.yield(ByteBuffer(repeating: 1, count: Self.chunk))
                // The rest is held back until the service has seen the first chunk: a gateway that collected the whole
                // body first would never forward it, and the flag would not be set within the wait.
                let streamed = try await eventually(timeout: .seconds(60)) { upstreamSawBytes.isSet }
                sentBeforeUpstreamSawBytes.withLock { $0 = streamed }
                for _ in 1..<(Self.total / Self.chunk) { continuation.yield(ByteBuffer(repeating: 2, count: Self.chunk)) }
                continuation.finish()
            }
            let answer = try await gateway.send(.POST, "/v1/media", headers: [("Content-Type", "application/octet-stream")],
                                                body: .stream(body, length: .known(Int64(Self.total))), timeout: .seconds(120))
            try await producer.value
            #expect(sentBeforeUpstreamSawBytes.withLock { $0 }, "the service saw nothing before the client finished: the body was buffered")
            #expect(answer.status == 201)
            #expect(answer.text == "\(Self.total)")
        }
    }

    @Test("an 8 MiB download streams: the client has its first bytes before the service has sent the rest")
    func downloadStreams() async throws {
        let clientSawBytes = Flag()
        let waitedInVain = Flag()
        let standIn = StandIn.custom { _ in
            let (body, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
            Task {
                continuation.yield(ByteBuffer(repeating: 1, count: Self.chunk))
                if !(try await eventually(timeout: .seconds(60)) { clientSawBytes.isSet }) { waitedInVain.set() }
                for _ in 1..<(Self.total / Self.chunk) { continuation.yield(ByteBuffer(repeating: 2, count: Self.chunk)) }
                continuation.finish()
            }
            return Response(status: .ok, headers: [.contentLength: "\(Self.total)", .contentType: "application/zip"],
                            body: ResponseBody(asyncSequence: body))
        }
        try await GatewayHarness.run(upstreams: ["tour-management": standIn]) { (gateway: GatewayHarness) async throws in
            let request = HTTPClientRequest(url: gateway.url("/v1/tours/7/bundle"))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-length") == "\(Self.total)")
            var bytes = 0
            for try await chunk in response.body {
                bytes += chunk.readableBytes
                clientSawBytes.set()
            }
            #expect(bytes == Self.total)
            #expect(!waitedInVain.isSet, "the client saw nothing before the service finished: the answer was buffered")
        }
    }
}
