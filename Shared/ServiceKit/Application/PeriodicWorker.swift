import Logging
import ServiceLifecycle

/// Scheduled work of a service as a swift-service-lifecycle `Service`: waits for what its rounds read, then runs one
/// round per tick of ``PeriodicTicks`` until graceful shutdown. List it in the application's `background` services.
///
/// ```swift
/// PeriodicWorker("bundle publishing", every: .milliseconds(250), after: [bundleQueue, discovery], logger: logger) {
///     try await publisher.drain()
/// }
/// ```
/// (`after:` — waiting for read models to be live — is Messaging's `PeriodicWorker+ReadModels.swift`.)
///
/// - A round that throws is logged once, the same way for every worker — level `error`, message
///   `periodic work failed; retrying next round`, metadata `worker` (its name) and `error` — and the next round
///   runs after `interval`.
/// - Cancellation is never swallowed: a round that throws `CancellationError` (or fails once the task is cancelled)
///   ends the worker without logging a failure.
/// - Graceful shutdown cancels the wait and the round in flight (`cancelWhenGracefulShutdown`), so the worker ends
///   promptly; `run()` then returns normally, as it does when its task is cancelled.
public struct PeriodicWorker: Service {
    /// What the work is, in logs (`worker` metadata), e.g. `bundle publishing`.
    public let name: String
    /// Pause between the end of one round and the start of the next.
    public let interval: Duration
    /// Whether the first round runs as soon as the prerequisite is met rather than one `interval` later.
    public let immediately: Bool
    private let prerequisite: @Sendable () async -> Void
    private let round: @Sendable () async throws -> Void
    private let logger: Logger

    /// Creates a worker.
    ///
    /// - Parameters:
    ///   - name: What the work is, in logs.
    ///   - interval: Pause between the end of one round and the start of the next.
    ///   - immediately: Whether the first round runs at once (after `prerequisite`); otherwise after `interval`.
    ///   - logger: Where failed rounds are logged.
    ///   - prerequisite: Awaited once before the first round (e.g. read models catching up with the log); it must
    ///     return when the task is cancelled.
    ///   - round: One round of the work; a named function of the worker's owner, testable on its own.
    public init(_ name: String, every interval: Duration, immediately: Bool = true, logger: Logger,
                waitingFor prerequisite: @escaping @Sendable () async -> Void = {},
                round: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.immediately = immediately
        self.logger = logger
        self.prerequisite = prerequisite
        self.round = round
    }

    /// Waits for the prerequisite, then runs rounds until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await prerequisite()
            for await _ in PeriodicTicks(interval: interval, immediately: immediately) {
                guard await runRound() else { return }
            }
        }
    }

    /// Runs one round and logs its failure; `false` when cancellation ended it.
    func runRound() async -> Bool {
        do {
            try await round()
            return true
        } catch is CancellationError {
            return false
        } catch {
            if Task.isCancelled { return false }
            logger.error("periodic work failed; retrying next round", metadata: ["worker": "\(name)", "error": "\(error)"])
            return true
        }
    }
}
