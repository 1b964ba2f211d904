import Hummingbird
import Logging
import ServiceKit
import ServiceLifecycle

/// Runs a service on 127.0.0.1 with an ephemeral port for the duration of `body`.
public enum LoopbackServer {
    /// A logger that drops everything.
    public static let quietLogger = Logger(label: "waypoint-tests") { _ in SwiftLogNoOpLogHandler() }

    /// Starts `makeService` (given a callback reporting the bound port), runs `body` with the port,
    /// then shuts the service down gracefully. `beside` runs in the same group (started first, stopped after the
    /// server), e.g. a consumer the server's routes read from.
    public static func run<T: Sendable>(
        _ makeService: (@escaping @Sendable (Int) -> Void) throws -> any Service,
        beside: [any Service] = [],
        body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let service = try makeService { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: (beside + [service]).map { ServiceGroupConfiguration.ServiceConfiguration.named($0) }, logger: quietLogger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(port)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// Runs a plain Hummingbird router on loopback.
    public static func run<T: Sendable>(router: Router<BasicRequestContext>, body: @Sendable (Int) async throws -> T) async throws -> T {
        try await run({ reportPort in
            Application(
                router: router,
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { reportPort($0.localAddress!.port!) },
                logger: quietLogger
            )
        }, body: body)
    }
}
