import AsyncHTTPClient
import Hummingbird
import ServiceKit
import ServiceLifecycle
import ServiceTesting
import Synchronization
import Testing

@Suite("Graceful shutdown drains in order")
struct GracefulShutdownTests {
    /// What happened during shutdown, in order.
    actor Timeline {
        private(set) var events: [String] = []
        func record(_ event: String) { events.append(event) }
    }

    /// A background service or client that notes when it is asked to stop.
    struct Probe: Service {
        let name: String
        let timeline: Timeline
        let onShutdown: @Sendable () async -> Void

        func run() async throws {
            try? await gracefulShutdown()
            await onShutdown()
            await timeline.record("\(name) stopped")
        }
    }

    /// The status of `GET path`, or `nil` when nothing accepts the connection.
    static func status(port: Int, path: String) async -> Int? {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) else { return nil }
        return Int(response.status.code)
    }

    @Test("readiness turns 503 while HTTP still answers, then HTTP stops, then consumers, then database clients")
    func shutdownOrder() async throws {
        let timeline = Timeline()
        let readiness = Readiness()
        let boundPort = Mutex<Int>(0)
        let consumer = Probe(name: "consumer", timeline: timeline) {
            let httpOpen = await Self.status(port: boundPort.withLock { $0 }, path: "/health/live") != nil
            await timeline.record("consumer sees draining=\(readiness.isDraining) http=\(httpOpen ? "open" : "closed")")
        }
        let database = Probe(name: "database", timeline: timeline) {}
        let (ports, portReported) = AsyncStream.makeStream(of: Int.self)
        let app = try TestApplication.make(
            configuration: .test(drainDelay: .seconds(10)),  // generous: the suite runs beside heavy tests that starve it for seconds
            readiness: readiness,
            clients: [database],
            background: [consumer],
            onServerRunning: { portReported.yield($0.localAddress!.port!) }
        )
        let group = ServiceGroup(configuration: .init(services: [app], logger: TestApplication.quietLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(await ports.first { _ in true })
            boundPort.withLock { $0 = port }
            #expect(await Self.status(port: port, path: "/health/ready") == 200)

            await group.triggerGracefulShutdown()  // what SIGTERM does through runService()
            let sawDraining = try await eventually { await Self.status(port: port, path: "/health/ready") == 503 }
            #expect(sawDraining, "readiness never answered 503 while the listener was still open")

            try await tasks.waitForAll()
        }
        #expect(await timeline.events == [
            "consumer sees draining=true http=closed",
            "consumer stopped",
            "database stopped",
        ])
    }

    struct ConsumerCrashed: Error, Equatable {}

    /// A background service that fails as soon as it starts.
    struct FailingConsumer: Service {
        func run() async throws { throw ConsumerCrashed() }
    }

    @Test("a failing background service shuts the rest down in order and run() rethrows its error")
    func failingBackgroundService() async throws {
        let timeline = Timeline()
        let readiness = Readiness()
        let database = Probe(name: "database", timeline: timeline) {
            await timeline.record("database sees draining=\(readiness.isDraining)")
        }
        let app = try TestApplication.make(readiness: readiness, clients: [database], background: [FailingConsumer()])
        await #expect(throws: ConsumerCrashed()) { try await app.run() }
        #expect(await timeline.events == ["database sees draining=true", "database stopped"])
    }
}
