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
/// gateway's overhead at p50 on the reference machine. Lines at ``urgentLevel`` or above (warnings, errors) are
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
    public let fileDescriptor: Int32
    /// Longest time a line waits in the buffer.
    public let interval: Duration
    /// Buffered bytes that make the next line write at once.
    public let limit: Int

    private struct Pending {
        var bytes: [UInt8] = []
        /// Whether a write of the buffer is scheduled.
        var scheduled = false
    }

    private let pending = Mutex(Pending())
    /// Held while taking the buffer and writing it, so writes keep the buffer's order.
    private let writing = Mutex(())
    private let queue = DispatchQueue(label: "waypoint.log-output")

    /// An output to `fileDescriptor` (not closed by it).
    public init(fileDescriptor: Int32, interval: Duration = .milliseconds(20), limit: Int = 256 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.interval = interval
        self.limit = limit
    }

    /// Queues `line` (with its newline); writes at once, with everything queued before it, when `urgent` or when the
    /// buffer is over ``limit``.
    public func write(_ line: [UInt8], urgent: Bool = false) {
        enum Next { case none, schedule, flush }
        let next = pending.withLock { pending -> Next in
            pending.bytes.append(contentsOf: line)
            if urgent || pending.bytes.count >= limit { return .flush }
            if pending.scheduled { return .none }
            pending.scheduled = true
            return .schedule
        }
        switch next {
        case .none:
            break
        case .flush:
            flush()
        case .schedule:
            let (seconds, attoseconds) = interval.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                self.pending.withLock { $0.scheduled = false }
                self.flush()
            }
        }
    }

    /// Writes everything queued now.
    public func flush() {
        writing.withLock { _ in
            let bytes = pending.withLock { pending in
                defer { pending.bytes.removeAll(keepingCapacity: pending.bytes.capacity <= limit) }
                return pending.bytes
            }
            Self.writeAll(bytes, to: fileDescriptor)
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
