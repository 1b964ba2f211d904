#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Runs one service for the life of the launcher: starts its process with its planned environment, prefixes its
/// output, marks it ready when `/health/ready` answers 200, restarts it with ``RestartBackoff`` when it exits on its own,
/// and on ``stop()`` sends SIGTERM, waits longer than the service's own drain bound, then SIGKILL.
public actor ServiceSupervisor {
    public nonisolated let entry: LaunchPlan.Entry
    private let executable: String
    private let environment: [String: String]
    private let backoff: RestartBackoff
    private let stopGracePeriod: Duration
    private let console: Console
    private let board: StatusBoard
    private let probe: ReadinessProbe
    private let nameWidth: Int

    private var child: ChildProcess?
    private var stopping = false
    private var backoffWait: Task<Void, Never>?

    public init(entry: LaunchPlan.Entry, executable: String, environment: [String: String], backoff: RestartBackoff,
                stopGracePeriod: Duration, console: Console, board: StatusBoard, probe: ReadinessProbe, nameWidth: Int) {
        self.entry = entry
        self.executable = executable
        self.environment = environment
        self.backoff = backoff
        self.stopGracePeriod = stopGracePeriod
        self.console = console
        self.board = board
        self.probe = probe
        self.nameWidth = nameWidth
    }

    /// Starts the service and keeps it running until ``stop()``; returns once its last process has exited.
    public func run() async {
        var crashes = 0
        while !stopping {
            let process: ChildProcess
            do {
                process = try spawn()
            } catch {
                console.say("\(entry.name): cannot start \(executable): \(error)")
                await board.update(entry.name) { $0.state = .stopped; $0.lastExit = "not started: \(error)" }
                return
            }
            child = process
            await board.update(entry.name) { $0.pid = process.pid; $0.state = .starting; $0.readyAt = nil }
            let readyAt = ReadyMark()
            let watcher = watchReadiness(of: process, restarted: crashes > 0, readyAt: readyAt)
            let status = await process.waitForExit()
            watcher.cancel()
            if stopping {
                await board.update(entry.name) { $0.state = .stopped; $0.pid = nil; $0.lastExit = status.description }
                return
            }
            crashes = backoff.consecutiveCrashes(previous: crashes, readyFor: readyAt.value.map { ContinuousClock.now - $0 })
            await waitBeforeRestart(after: status, crashes: crashes)
        }
        await board.update(entry.name) { $0.state = .stopped; $0.pid = nil }
    }

    /// Marks the service ready once `/health/ready` answers 200 for this process (and says so after a restart).
    private func watchReadiness(of process: ChildProcess, restarted: Bool, readyAt: ReadyMark) -> Task<Void, Never> {
        Task { [probe, board, entry, console] in
            guard await probe.waitUntilReady(entry.baseURL), process.exitStatus == nil else { return }
            readyAt.set(ContinuousClock.now)
            if restarted { console.say("\(entry.name) ready again (pid \(process.pid), port \(entry.port))") }
            await board.update(entry.name) { service in
                guard service.pid == process.pid, service.state == .starting else { return }
                service.state = .ready
                service.readyAt = Date()
            }
        }
    }

    /// Reports the crash and sleeps the back-off delay (cut short by ``stop()``).
    private func waitBeforeRestart(after status: ExitStatus, crashes: Int) async {
        let delay = backoff.delay(consecutiveCrashes: crashes)
        console.say("\(entry.name) exited (\(status)); restarting in \(Self.seconds(delay)) (crash \(crashes) in a row)")
        await board.update(entry.name) { $0.state = .restarting; $0.pid = nil; $0.lastExit = status.description }
        let wait = Task { _ = try? await Task.sleep(for: delay) }
        backoffWait = wait
        await wait.value
        backoffWait = nil
        if !stopping { await board.update(entry.name) { $0.restarts += 1 } }
    }

    /// Stops the service: no more restarts; SIGTERM to the running process, SIGKILL to its process group if it is still
    /// there after the grace period. Returns when it has exited.
    public func stop() async {
        stopping = true
        backoffWait?.cancel()
        guard let child, child.exitStatus == nil else { return }
        await board.update(entry.name) { $0.state = .stopping }
        child.send(SIGTERM)
        let exited = await withTaskGroup(of: Bool.self) { group in
            group.addTask { _ = await child.waitForExit(); return true }
            group.addTask { [stopGracePeriod] in try? await Task.sleep(for: stopGracePeriod); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !exited {
            console.say("\(entry.name) did not stop within \(Self.seconds(stopGracePeriod)) of SIGTERM: SIGKILL")
            kill()
            _ = await child.waitForExit()
        }
    }

    /// SIGKILL now (a second Ctrl-C, or a straggler): the process and anything in its process group.
    public func kill() {
        stopping = true
        backoffWait?.cancel()
        guard let child, child.exitStatus == nil else { return }
        child.send(SIGKILL)
        _ = Glibc.kill(-child.pid, SIGKILL)
    }

    private func spawn() throws -> ChildProcess {
        let console = console
        let prefixer = PrefixerBox(LinePrefixer(name: entry.name, width: nameWidth))
        return try ChildProcess(executable: executable, arguments: [], environment: environment) { chunk in
            if let chunk {
                console.write(prefixer.feed(chunk))
            } else {
                console.write(prefixer.finish())
            }
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

/// The moment a process became ready, set by its readiness watcher and read after it exited.
private final class ReadyMark: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)
    func set(_ value: ContinuousClock.Instant) { instant.withLock { $0 = value } }
    var value: ContinuousClock.Instant? { instant.withLock { $0 } }
}

/// One reader thread's line state (only that thread touches it; the lock makes the compiler agree).
private final class PrefixerBox: Sendable {
    private let prefixer: Mutex<LinePrefixer>
    init(_ prefixer: LinePrefixer) { self.prefixer = Mutex(prefixer) }
    func feed(_ bytes: ArraySlice<UInt8>) -> [UInt8] { prefixer.withLock { $0.feed(bytes) } }
    func finish() -> [UInt8] { prefixer.withLock { $0.finish() } }
}
