import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import ServiceKit
import Testing

/// The server every Waypoint process runs: requests answered on their connection's event loop, each in a child task.
@Suite("Event-loop server")
struct EventLoopServerTests {
    @Test("requests are answered on an event loop thread, over keep-alive connections, bodies streaming both ways")
    func answersOnTheEventLoop() async throws {
        let router = Router()
        router.get("/where") { _, _ -> String in
            "\(MultiThreadedEventLoopGroup.currentEventLoop != nil)"
        }
        router.post("/echo") { request, _ -> ByteBuffer in
            try await request.body.collect(upTo: 1 << 20)
        }
        let app = Application(router: router, server: .http1OnEventLoops(),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            for _ in 0..<5 {
                let answer = try await client.execute(uri: "/where", method: .get)
                #expect(String(buffer: answer.body) == "true", "answered off the event loop")
            }
            let body = ByteBuffer(repeating: 7, count: 300_000)
            let echoed = try await client.execute(uri: "/echo", method: .post, body: body)
            #expect(echoed.status == .ok && echoed.body == body)
        }
    }
}
