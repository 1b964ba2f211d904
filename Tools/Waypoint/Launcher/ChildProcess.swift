#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// How a child process ended.
public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// Decodes a `waitpid` status (the `WIFEXITED`/`WTERMSIG` macros, which Swift cannot import).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    public var description: String {
        switch self {
        case .exited(let code): "exit status \(code)"
        case .signalled(let signal): "signal \(signal)\(Self.names[signal].map { " (\($0))" } ?? "")"
        }
    }

    private static let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
                                                 SIGABRT: "SIGABRT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGBUS: "SIGBUS"]
}

/// A process started with `posix_spawn`: in its own process group (so the terminal's Ctrl-C reaches only the launcher,
/// which then stops the services in order), with SIGINT/SIGTERM/SIGPIPE reset to their defaults, standard input from
/// `/dev/null`, and standard output and error either inherited or read into `output`. A dedicated thread waits for
/// the exit (`waitpid` blocks, so it stays off the cooperative pool); the pid is immutable and the exit status sits
/// behind a `Mutex`, so the type is plainly `Sendable`.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let exit = Mutex<(status: ExitStatus?, waiters: [CheckedContinuation<ExitStatus, Never>])>((nil, []))

    /// Starts `executable` with `arguments` and exactly `environment`.
    /// - Parameter output: called (on a reader thread) with each chunk the child writes to stdout or stderr, and with
    ///   `nil` once both are closed; `nil` to let the child write to the launcher's own stdout and stderr.
    public init(executable: String, arguments: [String], environment: [String: String],
                output: (@Sendable (ArraySlice<UInt8>?) -> Void)?) throws {
        // One spawn at a time: between pipe() and FD_CLOEXEC another spawn could hand the pipe to a second child.
        let (pid, readFD) = try spawnLock.withLock { _ in
            try Self.spawn(executable: executable, arguments: arguments, environment: environment, captureOutput: output != nil)
        }
        self.pid = pid
        if let output, let readFD { Self.startReader(fd: readFD, output: output) }
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let decoded = ExitStatus(waitStatus: status)
            let waiters = self.exit.withLock { state in
                state.status = decoded
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: decoded) }
        }
    }

    private static func spawn(executable: String, arguments: [String], environment: [String: String], captureOutput: Bool) throws
        -> (pid_t, Int32?) {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        var pipeFDs: [Int32] = [-1, -1]
        if captureOutput {
            // Close-on-exec: no other child inherits this pipe, so the reader sees end-of-file when this one exits.
            guard pipe(&pipeFDs) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 1)
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 2)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        if captureOutput { close(pipeFDs[1]) }
        guard result == 0 else {
            if captureOutput { close(pipeFDs[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        return (pid, captureOutput ? pipeFDs[0] : nil)
    }

    /// Waits until the process has exited (and was reaped); any number of callers may wait.
    public func waitForExit() async -> ExitStatus {
        await withCheckedContinuation { continuation in
            let done: ExitStatus? = exit.withLock { state in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// The exit status once the process was reaped; `nil` while it runs.
    public var exitStatus: ExitStatus? { exit.withLock { $0.status } }

    /// Sends `signal` to the process, unless it has already been reaped (its pid may then belong to someone else).
    public func send(_ signal: Int32) {
        exit.withLock { state in
            if state.status == nil { _ = kill(pid, signal) }
        }
    }

    private static func startReader(fd: Int32, output: @escaping @Sendable (ArraySlice<UInt8>?) -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                output(buffer[0..<count])
            }
            close(fd)
            output(nil)
        }
    }
}

private let spawnLock = Mutex<Void>(())

/// `write(2)`; named apart from ``Console/write(_:)``.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// The launcher's standard output (and standard error, for why it gives up), shared by every reader thread: whole lines,
/// never interleaved.
public final class Console: Sendable {
    private let lock = Mutex<Void>(())
    private let ownPrefix: LinePrefixer

    /// - Parameter nameWidth: the width service names are padded to in prefixes.
    public init(nameWidth: Int) {
        ownPrefix = LinePrefixer(name: "waypoint", width: nameWidth)
    }

    /// Writes bytes that already are whole lines.
    public func write(_ bytes: [UInt8]) {
        write(bytes, to: 1)
    }

    /// Writes the launcher's own message, prefixed `waypoint | `.
    public func say(_ message: String) {
        var prefixer = ownPrefix
        write(prefixer.feed(Array((message + "\n").utf8)))
    }

    /// Writes why the launcher gives up, prefixed `waypoint | error: `, to standard error.
    public func fail(_ message: String) {
        var prefixer = ownPrefix
        write(prefixer.feed(Array(("error: " + message + "\n").utf8)), to: 2)
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        guard !bytes.isEmpty else { return }
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
