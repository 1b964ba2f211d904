import Foundation
import Gateway
import Hummingbird
import NIOCore
import ServiceTesting
import Testing

@Suite("Slow clients: a connection that stalls is closed after the idle timeout")
struct SlowClientTests {
    @Test("a client that sends half a request is disconnected after the idle timeout, and others are served meanwhile")
    func halfARequestIsDisconnected() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")],
                                     configure: { $0.clientIdleTimeout = .milliseconds(500) }) { (gateway: GatewayHarness) async throws in
            // The gateway's default idle timeout is 75 s: a close within the socket's 60 s receive timeout is the 500 ms
            // one configured here (a starved test process may see it seconds late).
            let socket = try RawSocket.connect(port: gateway.port, receiveTimeout: .seconds(60))
            defer { close(socket) }
            RawSocket.send(socket, "GET /v1/tours HTTP/1.1\r\nHost: gateway\r\nAccept: appl")
            let other = try await gateway.send(.GET, "/v1/destinations")
            #expect(other.status == 200, "a stalled client must not block anyone else")
            let closed = await RawSocket.readUntilClosed(socket)
            #expect(closed != nil, "the gateway kept the stalled connection open for 60 s")
        }
    }

    @Test("an upload that stalls mid-body is cut off; the service never stores it")
    func stalledUploadIsCutOff() async throws {
        let stored = Hits()
        let failed = Hits()
        let store = StandIn.custom { request in
            do {
                for try await _ in request.body {}
            } catch {
                failed.add()
                throw error
            }
            stored.add()
            return Response(status: .created)
        }
        try await GatewayHarness.run(upstreams: ["tour-management": store],
                                     configure: { $0.clientIdleTimeout = .milliseconds(500) }) { (gateway: GatewayHarness) async throws in
            let socket = try RawSocket.connect(port: gateway.port)
            defer { close(socket) }
            RawSocket.send(socket, "POST /v1/media HTTP/1.1\r\nHost: gateway\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 1000))
            let closed = await RawSocket.readUntilClosed(socket)
            #expect(closed != nil, "the stalled upload kept its connection")
            #expect(try await eventually { failed.value == 1 }, "the service's request was not aborted")
        }
        #expect(stored.value == 0)
    }
}
