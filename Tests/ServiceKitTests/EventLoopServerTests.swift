import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import ServiceKit
import Testing

/// The server every Waypoint process runs: requests answered on their connection's event loop, each in a child task.
@Suite("Event-loop server")
struct EventLoopServerTests {
    @Test("a request is answered on an event loop thread, in its own task, over keep-alive connections")
    func answersOnTheEventLoop() async throws {
        let router = Router()
        router.get("/where") { _, _ -> String in
            // `withUnsafeCurrentTask` names the task answering: a child of the connection's task, new per request.
            let task = withUnsafeCurrentTask { $0.map { String(describing: $0.hashValue) } } ?? "none"
            return "\(MultiThreadedEventLoopGroup.currentEventLoop != nil) \(task)"
        }
        router.post("/echo") { request, _ -> ByteBuffer in
            try await request.body.collect(upTo: 1 << 20)
        }
        let app = Application(router: router, server: .http1OnEventLoops(),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            var tasks: Set<String> = []
            for _ in 0..<5 {
                let answer = try await client.execute(uri: "/where", method: .get)
                let text = String(buffer: answer.body)
                #expect(text.hasPrefix("true "), "answered off the event loop: \(text)")
                tasks.insert(String(text.dropFirst(5)))
            }
            #expect(tasks.count == 5, "each request in a task of its own")
            let body = ByteBuffer(repeating: 7, count: 300_000)
            let echoed = try await client.execute(uri: "/echo", method: .post, body: body)
            #expect(echoed.status == .ok && echoed.body == body)
        }
    }
}
