import AsyncHTTPClient
import Foundation
import Gateway
import Hummingbird
import NIOCore
import Synchronization
import Testing

@Suite("Body limits: 1 MiB by default, more on media uploads, 413 with nothing stored")
struct BodyLimitTests {
    /// A stand-in that stores a body only once it has arrived whole.
    final class Store: Sendable {
        let started = Hits()
        let stored = Hits()

        var standIn: StandIn {
            StandIn.custom { request in
                self.started.add()
                var bytes = 0
                for try await chunk in request.body { bytes += chunk.readableBytes }
                self.stored.add()
                return Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: "\(bytes)")))
            }
        }
    }

    @Test("an upload declaring more than the limit is 413 before anything reaches the service")
    func declaredOversizedUploadIs413() async throws {
        let store = Store()
        try await GatewayHarness.run(upstreams: ["tour-management": store.standIn]) { (gateway: GatewayHarness) async throws in
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "POST /v1/tours HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{\"title\":")
            let answer = try #require(await RawSocket.readResponse(socket))
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(80))")
            #expect(answer.contains("payload-too-large"))
        }
        #expect(store.started.value == 0)
        #expect(store.stored.value == 0)
    }

    @Test("a chunked upload that grows past the limit is 413 and the service never stores it")
    func chunkedOversizedUploadIs413() async throws {
        let store = Store()
        try await GatewayHarness.run(upstreams: ["tour-management": store.standIn]) { (gateway: GatewayHarness) async throws in
            let (body, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
            for _ in 0..<40 { continuation.yield(ByteBuffer(repeating: 7, count: 64 * 1024)) }  // 2.5 MiB
            continuation.finish()
            do {
                let answer = try await gateway.send(.POST, "/v1/tours/1/stops", body: .stream(body, length: .unknown))
                #expect(answer.status == 413)
                #expect(try answer.problem().code == "payload-too-large")
            } catch {
                // The gateway may close the connection while the client is still sending; what matters is below.
            }
        }
        #expect(store.stored.value == 0, "the service stored a body above the limit")
    }

    @Test("media uploads have their own, larger limit; other routes keep the default")
    func mediaRoutesHaveTheirOwnLimit() async throws {
        let store = Store()
        try await GatewayHarness.run(upstreams: ["tour-management": store.standIn], configure: { configuration in
            configuration.mediaMaxBodyBytes = 3 << 20
        }) { (gateway: GatewayHarness) async throws in
            let twoMiB = ByteBuffer(repeating: 1, count: 2 << 20)
            let media = try await gateway.send(.POST, "/v1/media", body: .bytes(twoMiB))
            #expect(media.status == 201)
            #expect(media.text == "\(2 << 20)")
            let stopMedia = try await gateway.send(.POST, "/v1/tours/1/stops/2/media", body: .bytes(twoMiB))
            #expect(stopMedia.status == 201)
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "POST /v1/media HTTP/1.1\r\nHost: gateway\r\nContent-Length: \(4 << 20)\r\n\r\n")
            #expect(await RawSocket.readResponse(socket)?.hasPrefix("HTTP/1.1 413") == true)
        }
        #expect(store.stored.value == 2)
    }

    @Test("ride uploads (samples, GPX import, preview) get the large limit; creating a trip keeps the default")
    func rideUploadsHaveTheLargeLimit() async throws {
        let store = Store()
        try await GatewayHarness.run(upstreams: ["record-trip": store.standIn], configure: { configuration in
            configuration.mediaMaxBodyBytes = 3 << 20
        }) { (gateway: GatewayHarness) async throws in
            let twoMiB = ByteBuffer(repeating: 1, count: 2 << 20)
            for path in ["/v1/trips/7f1d/samples", "/v1/trips/import", "/v1/trips/preview"] {
                #expect(try await gateway.send(.POST, path, body: .bytes(twoMiB)).status == 201, "\(path)")
            }
            #expect(try await gateway.send(.POST, "/v1/trips", body: .bytes(twoMiB)).status == 413)
        }
        #expect(store.stored.value == 3)
        #expect(RoutePolicies.isRideUpload(method: .post, path: "/v1/trips/7f1d/samples"))
        #expect(!RoutePolicies.isRideUpload(method: .get, path: "/v1/trips/import"))
        #expect(!RoutePolicies.isRideUpload(method: .post, path: "/v1/trips/7f1d/finish"))
    }
}
