import Foundation

/// The launcher's view of every service, kept in one place: each change is written to the state file
/// (`<data dir>/run/launcher.json`) and, when it matters to a person, said on the console.
public actor StatusBoard {
    private(set) var state: LauncherState
    private let fileURL: URL
    private let console: Console

    public init(plan: LaunchPlan, fileURL: URL, console: Console) {
        self.fileURL = fileURL
        self.console = console
        let now = Date()
        state = LauncherState(
            launcherPid: getpid(), phase: .starting, gatewayURL: plan.gatewayURL, dataDirectory: plan.options.dataDirectory.path,
            transport: plan.options.kafkaBrokers == nil ? "embedded" : "kafka", kafkaBrokers: plan.options.kafkaBrokers,
            storage: plan.options.postgres == nil ? "sqlite" : "postgres",
            postgres: plan.options.postgres.map { server in
                LauncherState.Postgres(server: server.redacted, databases: Dictionary(
                    uniqueKeysWithValues: plan.postgresDatabases.map { ($0.entry.name, $0.database) }))
            },
            startedAt: now, updatedAt: now,
            services: plan.entries.map { entry in
                LauncherState.Service(name: entry.name, port: entry.port, url: entry.baseURL,
                                      executable: entry.isBuilt ? entry.definition.executable : nil,
                                      state: entry.isStarted ? .starting : (entry.isBuilt ? .disabled : .notBuilt))
            })
    }

    /// The current state.
    public var snapshot: LauncherState { state }

    /// Whether every started service has answered ready since its last start.
    public var allStartedReady: Bool {
        state.services.allSatisfy { [.notBuilt, .disabled, .ready].contains($0.state) }
    }

    /// Services whose process could not even be started (their supervisor gave up).
    public var unstartable: [LauncherState.Service] {
        state.services.filter { $0.state == .stopped }
    }

    public func setPhase(_ phase: LauncherState.Phase) {
        state.phase = phase
        save()
    }

    /// Changes one service's entry and saves.
    public func update(_ name: String, _ change: (inout LauncherState.Service) -> Void) {
        guard let index = state.services.firstIndex(where: { $0.name == name }) else { return }
        change(&state.services[index])
        save()
    }

    /// Writes the state file; a failure is said once on the console, never fatal (the platform runs without it).
    private func save() {
        state.updatedAt = Date()
        do {
            try state.write(to: fileURL)
        } catch {
            console.say("cannot write \(fileURL.path): \(error)")
        }
    }

    /// One line per service: name, pid, port, state.
    public func statusLines() -> [String] {
        state.services.map(Self.statusLine)
    }

    static func statusLine(_ service: LauncherState.Service) -> String {
        let name = service.name.padding(toLength: 16, withPad: " ", startingAt: 0)
        let pid = service.pid.map { "pid \($0)" } ?? "-"
        let state: String = switch service.state {
        case .notBuilt: "not built in this version"
        case .disabled: "not started (--only)"
        case .restarting: "restarting" + (service.lastExit.map { " after \($0)" } ?? "")
        default: service.state.rawValue
        }
        return "\(name) \(pid.padding(toLength: 10, withPad: " ", startingAt: 0)) port \(service.port)  \(state)"
    }
}
