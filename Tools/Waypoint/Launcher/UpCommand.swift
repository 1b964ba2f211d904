#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import ReferenceData

/// `waypoint up`: the whole platform on one machine — every service and the gateway as separate processes on the
/// embedded default (SQLite under `--data-dir`, the embedded feed transport, or Kafka with `--kafka`).
struct Up: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Build if needed, start every service and the gateway, wait until they are ready, keep them running.",
        discussion: """
            Ports: the gateway on --base-port, auth +1, tour-management +2, path-review +3, navigation +4, record-trip +5,
            analytics +6. Services this version has no executable for are listed as "not built in this version".
            A crashed service is restarted with back-off (1 s doubling to 30 s, reset after 60 s ready). SIGINT or
            SIGTERM stops every service gracefully (a second one kills them) and exits 0; exit status 1 when a service
            is not ready within --ready-timeout. The state (pids, ports, URLs) is kept in <data-dir>/run/launcher.json.
            See docs/operations.md.
            """)

    @Flag(help: "Once everything is ready, seed a demo guide, a traveller and three published tours (idempotent).")
    var demo = false

    @Option(help: "Directory of the SQLite files, media, bundles and the launcher's state and secrets.")
    var dataDir = "data"

    @Option(help: "The gateway's port; the services take the next six.")
    var basePort = ServiceCatalog.defaultBasePort

    @Option(help: "Kafka bootstrap servers (host:port,…): every service uses Kafka instead of the embedded feed.")
    var kafka: String?

    @Flag(help: "Do not build; use the executables as they are.")
    var noBuild = false

    @Option(help: "Directory of prebuilt service executables (implies --no-build). Default: next to this waypoint executable.")
    var binPath: String?

    @Option(help: "Seconds every service has to become ready at start (tour-management imports the gazetteer on its first start).")
    var readyTimeout = 180

    @Option(help: "WAYPOINT_DRAIN_TIMEOUT_SECONDS for every service (default: the services' own, 30 s); SIGKILL comes 10 s later.")
    var drainTimeout: Int?

    @Option(help: "Service log format, json or text (default: text on a terminal, json otherwise).")
    var logFormat: String?

    @Option(help: "Start only these services (comma-separated names), e.g. auth,tour-management.")
    var only: String?

    func validate() throws {
        guard (1...65_529).contains(basePort) else { throw ValidationError("--base-port must leave room for seven ports (1…65529)") }
        guard readyTimeout > 0 else { throw ValidationError("--ready-timeout must be positive") }
        if let drainTimeout, drainTimeout < 1 { throw ValidationError("--drain-timeout must be at least 1") }
        if let logFormat, !["json", "text"].contains(logFormat) { throw ValidationError("--log-format is json or text") }
        for name in onlyNames ?? [] where ServiceCatalog.named(name) == nil {
            throw ValidationError("--only: no service named \(name) (\(ServiceCatalog.all.map(\.name).joined(separator: ", ")))")
        }
    }

    private var onlyNames: Set<String>? {
        only.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }) }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let nameWidth = ServiceCatalog.all.map(\.name.count).max() ?? 8
        let console = Console(nameWidth: nameWidth)
        let environment = ProcessInfo.processInfo.environment
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        if logFormat == nil, let inherited = environment["WAYPOINT_LOG_FORMAT"], !["json", "text"].contains(inherited.lowercased()) {
            console.say("error: WAYPOINT_LOG_FORMAT is \(inherited); expected json or text")
            throw ExitCode.failure
        }
        let dataDirectory = URL(fileURLWithPath: dataDir, isDirectory: true, relativeTo: cwd).standardizedFileURL
        let products = ServiceProducts(binDirectory: binPath.map { URL(fileURLWithPath: $0, isDirectory: true, relativeTo: cwd).standardizedFileURL }
                                       ?? ServiceProducts.runningExecutableDirectory())
        do {
            if !noBuild && binPath == nil { try await build(products, cwd: cwd, console: console) }
            let secrets = try LauncherSecrets.loadOrCreate(in: dataDirectory, environment: environment)
            if secrets.personalDataKey == nil {
                console.say("\(dataDirectory.path) held service databases before the launcher's first run: personal-data keys stay unwrapped")
            }
            let plan = LaunchPlan(.init(
                basePort: basePort, dataDirectory: dataDirectory, kafkaBrokers: kafka, internalToken: secrets.internalToken,
                personalDataKey: secrets.personalDataKey, referenceDataDirectory: ReferenceDataDirectory.locate(environment: environment)?.path,
                logFormat: logFormat ?? environment["WAYPOINT_LOG_FORMAT"] ?? (isatty(1) == 1 ? "text" : "json"),
                drainTimeoutSeconds: drainTimeout, available: products.available(), only: onlyNames))
            let launcher = PlatformLauncher(plan: plan, products: products, readyTimeout: .seconds(readyTimeout),
                                            inheritedEnvironment: environment, demo: demo, console: console, nameWidth: nameWidth)
            let status = try await launcher.run()
            if status != 0 { throw ExitCode(status) }
        } catch let error as LauncherError {
            console.say("error: \(error)")
            throw ExitCode.failure
        }
    }

    /// `swift build --product` for each service product this version of the package declares.
    private func build(_ products: ServiceProducts, cwd: URL, console: Console) async throws {
        guard let root = ServiceProducts.packageRoot(from: cwd) else {
            throw LauncherError("no Package.swift above \(cwd.path): run from the repository, or pass --bin-path DIR")
        }
        guard let swift = ServiceProducts.swiftExecutable() else { throw LauncherError("swift is not on PATH (or pass --no-build)") }
        let declared = try await ServiceProducts.declaredExecutables(packageRoot: root, swift: swift)
        let wanted = ServiceCatalog.all.map(\.executable).filter { declared.contains($0) && (onlyNames?.contains($0) ?? true) }
        try await products.build(wanted, packageRoot: root, swift: swift, console: console)
    }
}
