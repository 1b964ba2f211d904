import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where JSON log lines go: a file descriptor (standard output in services), written off the logging thread.
///
/// A line is appended to a buffer and the caller goes on; everything that gathered is written in one `write` at most
/// ``interval`` after the first of it. The gateway logs every request: one `write` per line put a system call and a
/// wake-up of the reading process (the launcher, a container runtime) on every request's path — ~0.1 ms of the
/// gateway's overhead at p50 on the reference machine. Urgent lines (the JSON handler's warnings and errors) are
/// written at once, together with everything before them, so the lines that explain a failure are out before it
/// can take the process down; so is a buffer over ``limit`` bytes (the caller then waits for the `write`: a reader
/// that cannot keep up slows the writers instead of growing memory). The process's exit (`exit`, or returning from
/// `main`) writes what is left; a `SIGKILL` or a crash loses at most the last ``interval`` of informational lines.
/// Lines never interleave and keep their order.
public final class LogOutput: Sendable {
    /// Standard output; flushed at exit.
    public static let standardOutput: LogOutput = {
        let output = LogOutput(fileDescriptor: STDOUT_FILENO)
        atexit { LogOutput.standardOutput.flush() }
        return output
    }()

    /// The descriptor written to.
    public var fileDescriptor: Int32 { core.fileDescriptor }
    /// Longest time a line waits in the buffer.
    public var interval: Duration { core.interval }
    /// Buffered bytes that make the next line write at once.
    public var limit: Int { core.limit }

    private let core: Core

    /// An output to `fileDescriptor` (not closed by it).
    public init(fileDescriptor: Int32, interval: Duration = .milliseconds(20), limit: Int = 256 * 1024) {
        core = Core(fileDescriptor: fileDescriptor, interval: interval, limit: limit)
    }

    deinit {
        core.close()
    }

    /// Queues `line` (with its newline); writes at once, with everything queued before it, when `urgent` or when the
    /// buffer is over ``limit``.
    public func write(_ line: [UInt8], urgent: Bool = false) {
        core.write(line, urgent: urgent)
    }

    /// Writes everything queued now.
    public func flush() {
        core.flush()
    }

    /// The buffer and its writer thread. The thread is its own (started with the first buffered line), not a
    /// Dispatch or NIO worker: a busy or blocked pool must not hold log lines back. It sleeps on a semaphore until a
    /// line arrives in an empty buffer, waits ``interval``, writes, and ends when the output goes away.
    final class Core: Sendable {
        let fileDescriptor: Int32
        let interval: Duration
        let limit: Int

        private struct Pending {
            var bytes: [UInt8] = []
            /// Whether the writer thread was woken for what is in the buffer.
            var scheduled = false
            var threadStarted = false
            var closed = false
        }

        private let pending = Mutex(Pending())
        /// Held while taking the buffer and writing it, so writes keep the buffer's order.
        private let writing = Mutex(())
        private let wake = DispatchSemaphore(value: 0)

        init(fileDescriptor: Int32, interval: Duration, limit: Int) {
            self.fileDescriptor = fileDescriptor
            self.interval = interval
            self.limit = limit
        }

        func write(_ line: [UInt8], urgent: Bool) {
            enum Next { case none, wake, startAndWake, flush }
            let next = pending.withLock { pending -> Next in
                pending.bytes.append(contentsOf: line)
                if urgent || pending.bytes.count >= limit || pending.closed { return .flush }
                if pending.scheduled { return .none }
                pending.scheduled = true
                if pending.threadStarted { return .wake }
                pending.threadStarted = true
                return .startAndWake
            }
            switch next {
            case .none:
                break
            case .flush:
                flush()
            case .wake:
                wake.signal()
            case .startAndWake:
                startThread()
                wake.signal()
            }
        }

        func flush() {
            writing.withLock { _ in
                let bytes = pending.withLock { pending in
                    defer { pending.bytes.removeAll(keepingCapacity: pending.bytes.capacity <= limit) }
                    return pending.bytes
                }
                if !bytes.isEmpty { LogOutput.writeAll(bytes, to: fileDescriptor) }
            }
        }

        /// Writes what is left and lets the thread end.
        func close() {
            pending.withLock { $0.closed = true }
            flush()
            wake.signal()
        }

        private func runThread() {
            let (seconds, attoseconds) = interval.components
            var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            while true {
                wake.wait()
                if pending.withLock({ $0.closed }) { return }
                var remaining = timespec()
                while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
                pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                pending.withLock { $0.scheduled = false }
                flush()
            }
        }

        private func startThread() {
            let retained = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { argument in
                let core = Unmanaged<Core>.fromOpaque(argument!).takeRetainedValue()
                core.runThread()
                return nil
            }, retained)
            if started == 0 {
                pthread_detach(thread)
            } else {
                // No thread: write every line at once from now on.
                Unmanaged<Core>.fromOpaque(retained).release()
                pending.withLock { $0.closed = true }
                flush()
            }
        }
    }

    /// One `write` of `bytes` (retried when interrupted or short); a closed or full descriptor drops them rather than
    /// crash the service.
    static func writeAll(_ bytes: [UInt8], to fileDescriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// `write(2)` (the name is taken by ``LogOutput/write(_:urgent:)`` inside the class).
private func systemWrite(_ fileDescriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fileDescriptor, bytes, count)
}
