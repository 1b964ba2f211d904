import Logging
import ServiceLifecycle

/// The first service to stop on shutdown: turns readiness to 503, waits the drain delay, then returns
/// so the HTTP server may close.
///
/// ``ServiceApplication`` lists it last in its service group; swift-service-lifecycle stops services in
/// reverse order and waits for each, so it precedes the HTTP drain.
struct ReadinessDrainGate: Service {
    let readiness: Readiness
    /// How long readiness stays 503 while the listener still accepts requests.
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        readiness.beginDraining()
        logger.info("draining: readiness is now 503", metadata: ["drain_delay": .string("\(delay)")])
        if delay > .zero {
            try? await Task.sleep(for: delay)
        }
    }
}
