import NIOPosix
import Synchronization

/// The threads on which bcrypt runs: a dedicated `NIOThreadPool` of `maximumConcurrency` threads.
///
/// bcrypt blocks its thread for tens to hundreds of milliseconds, so it must stay off Swift's cooperative pool
/// (which has one thread per core and runs every request) and off NIO's event loops. The pool's threads take
/// work in submission order, so callers beyond `maximumConcurrency` wait first-in, first-out.
final class BcryptWorkers: Sendable {
    let pool: NIOThreadPool
    let threadCount: Int
    private let counters = Mutex(Counters())

    struct Counters {
        var inFlight = 0
        var peakInFlight = 0
        var completed = 0
    }

    init(threadCount: Int) {
        self.threadCount = threadCount
        self.pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    deinit {
        // A no-op when `shutdown()` already ran; otherwise lets the threads exit once the last hasher copy is gone.
        pool.shutdownGracefully { _ in }
    }

    /// Runs `body` on a worker thread, waiting for a free one when all are busy.
    ///
    /// - Throws: ``PasswordHasherError/shutDown`` after ``shutdown()``; `CancellationError` when the calling task
    ///   is cancelled while still queued.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await pool.runIfActive {
                self.counters.withLock {
                    $0.inFlight += 1
                    $0.peakInFlight = max($0.peakInFlight, $0.inFlight)
                }
                defer {
                    self.counters.withLock {
                        $0.inFlight -= 1
                        $0.completed += 1
                    }
                }
                return try body()
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw PasswordHasherError.shutDown
        } catch is CancellationError where !Task.isCancelled {
            // Queued work is cancelled when the pool shuts down.
            throw PasswordHasherError.shutDown
        }
    }

    /// The most hashes that ever ran at the same time (diagnostics and tests).
    var peakInFlight: Int { counters.withLock { $0.peakInFlight } }

    /// Hashes finished so far (diagnostics and tests).
    var completed: Int { counters.withLock { $0.completed } }

    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
