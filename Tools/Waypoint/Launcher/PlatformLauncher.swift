import Foundation
import Synchronization
import UnixSignals

/// `waypoint up` once the executables are known: starts every planned service under a ``ServiceSupervisor``, waits
/// until each is ready, prints the gateway URL and a status line per service, optionally seeds the demo, and on
/// SIGINT/SIGTERM stops everything in waves (gateway, consumers, producers) and returns 0.
public struct PlatformLauncher: Sendable {
    public var plan: LaunchPlan
    public var products: ServiceProducts
    public var readyTimeout: Duration
    public var backoff: RestartBackoff
    public var inheritedEnvironment: [String: String]
    public var demo: Bool
    public var console: Console
    public var nameWidth: Int

    public init(plan: LaunchPlan, products: ServiceProducts, readyTimeout: Duration, backoff: RestartBackoff = RestartBackoff(),
                inheritedEnvironment: [String: String], demo: Bool, console: Console, nameWidth: Int) {
        self.plan = plan
        self.products = products
        self.readyTimeout = readyTimeout
        self.backoff = backoff
        self.inheritedEnvironment = inheritedEnvironment
        self.demo = demo
        self.console = console
        self.nameWidth = nameWidth
    }

    /// Runs the platform until a signal; returns the exit status for the launcher (0 after a signal, 1 when start-up
    /// failed).
    public func run() async throws -> Int32 {
        // Trap the signals before any child exists, so no Ctrl-C can kill the launcher and leave orphans.
        let trapped = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let stateFile = LauncherState.fileURL(dataDirectory: plan.options.dataDirectory)
        try await StartupChecks.takeOver(stateFile: stateFile, console: console, grace: plan.stopGracePeriod)
        let busy = plan.started.filter { !StartupChecks.isPortFree($0.port, host: plan.options.host) }
        if !busy.isEmpty {
            throw LauncherError("port in use: " + busy.map { "\($0.port) (\($0.name))" }.joined(separator: ", ")
                                + " — another platform running? choose other ports with --base-port")
        }
        guard !plan.started.isEmpty else { throw LauncherError("no service executable found in \(products.binDirectory.path)") }

        let board = StatusBoard(plan: plan, fileURL: stateFile, console: console)
        await board.setPhase(.starting)
        let supervisors = plan.started.map { entry in
            ServiceSupervisor(entry: entry, executable: products.path(of: entry.definition.executable)!,
                              environment: plan.environment(for: entry, inheriting: inheritedEnvironment), backoff: backoff,
                              stopGracePeriod: plan.stopGracePeriod, console: console, board: board, probe: ReadinessProbe(),
                              nameWidth: nameWidth)
        }
        for entry in plan.entries where !entry.isStarted {
            console.say("\(entry.name): \(entry.isBuilt ? "not started (--only)" : "not built in this version")")
        }
        let signals = SignalLatch()
        let listener = Task { await signals.listen(to: trapped) { await Self.killAll(supervisors) } }
        defer { listener.cancel() }

        return await withTaskGroup(of: Void.self) { group in
            for supervisor in supervisors { group.addTask { await supervisor.run() } }
            let status = await supervise(board: board, signals: signals)
            await board.setPhase(status == 0 ? .stopping : .failed)
            console.say("stopping every service (SIGTERM; SIGKILL after \(ServiceSupervisor.seconds(plan.stopGracePeriod)); Ctrl-C again kills at once)")
            for wave in Set(supervisors.map(\.entry.definition.stopWave)).sorted(by: >) {
                await withTaskGroup(of: Void.self) { stopping in
                    for supervisor in supervisors where supervisor.entry.definition.stopWave == wave {
                        stopping.addTask { await supervisor.stop() }
                    }
                }
            }
            await group.waitForAll()
            await board.setPhase(.stopped)
            console.say("stopped")
            return status
        }
    }

    /// Waits for readiness (or a signal), reports, seeds the demo, then waits for a signal. Returns the exit status.
    private func supervise(board: StatusBoard, signals: SignalLatch) async -> Int32 {
        let deadline = ContinuousClock.now + readyTimeout
        while await !board.allStartedReady {
            if signals.received { return 0 }
            let unstartable = await board.unstartable
            if !unstartable.isEmpty {
                console.say("cannot start: " + unstartable.map { "\($0.name) (\($0.lastExit ?? "?"))" }.joined(separator: ", "))
                return 1
            }
            if ContinuousClock.now >= deadline {
                console.say("not ready within \(ServiceSupervisor.seconds(readyTimeout)) (--ready-timeout):")
                for line in await board.statusLines() { console.say("  \(line)") }
                return 1
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        await board.setPhase(.running)
        let gatewayStarted = plan.entry("gateway")?.isStarted == true
        console.say(gatewayStarted ? "ready: the platform answers at \(plan.gatewayURL)"
                                   : "ready (no gateway in this version: call the services directly)")
        for line in await board.statusLines() { console.say("  \(line)") }
        console.say("state file: \(LauncherState.fileURL(dataDirectory: plan.options.dataDirectory).path); Ctrl-C stops everything")
        if demo && !signals.received {
            do {
                let seeded = try await DemoSeeder(plan: plan, console: console, createAdministrator: createAdministrator).seed()
                for line in seeded.summary { console.say(line) }
            } catch {
                console.say("demo data not seeded: \(error)")
            }
        }
        await signals.wait()
        return 0
    }

    /// `auth create-admin` for `account`, with exactly the environment the running auth has (same store, same keys):
    /// an administrator is made only by the operator command, never by a route.
    @Sendable func createAdministrator(_ account: DemoData.Account) async throws {
        guard let entry = plan.entry("auth"), entry.isStarted, let executable = products.path(of: entry.definition.executable) else {
            throw LauncherError("auth does not run: no administrator")
        }
        var environment = plan.environment(for: entry, inheriting: inheritedEnvironment)
        environment["WAYPOINT_ADMIN_PASSWORD"] = account.password
        let output = Mutex<[UInt8]>([])
        let process = try ChildProcess(executable: executable, arguments: ["create-admin", "--username", account.username, "--email", account.email],
                                       environment: environment) { chunk in if let chunk { output.withLock { $0 += chunk } } }
        let status = await process.waitForExit()
        guard status == .exited(0) else {
            let text = String(decoding: output.withLock { $0 }.suffix(2_000), as: UTF8.self)
            throw LauncherError("auth create-admin \(account.email) failed (\(status)): \(text)")
        }
    }

    private static func killAll(_ supervisors: [ServiceSupervisor]) async {
        for supervisor in supervisors { await supervisor.kill() }
    }
}

/// SIGINT/SIGTERM: the first asks for a graceful stop, a second one kills every process at once.
final class SignalLatch: Sendable {
    private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    var received: Bool { state.withLock { $0.count > 0 } }

    /// Listens until cancelled; calls `onSecond` on the second signal.
    func listen(to signals: UnixSignalsSequence, onSecond: @Sendable () async -> Void) async {
        for await _ in signals {
            let (count, waiters) = state.withLock { state in
                state.count += 1
                defer { state.waiters = [] }
                return (state.count, state.waiters)
            }
            for waiter in waiters { waiter.resume() }
            if count >= 2 { await onSecond() }
        }
    }

    /// Returns once a signal was received.
    func wait() async {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state in
                if state.count > 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }
}
