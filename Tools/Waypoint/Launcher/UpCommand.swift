#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import ReferenceData

/// `waypoint up`: the whole platform on one machine — every service and the gateway as separate processes on the
/// embedded default (SQLite under `--data-dir`, the embedded feed transport), or on the production stores: PostgreSQL
/// with `--postgres`, Kafka with `--kafka`.
struct Up: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Build if needed, start every service and the gateway, wait until they are ready, keep them running.",
        discussion: """
            Ports: the gateway on --base-port, auth +1, tour-management +2, path-review +3, navigation +4, record-trip +5, \
            analytics +6. Services this version has no executable for are listed as "not built in this version". \
            A crashed service is restarted with back-off (1 s doubling to 30 s, reset after 60 s ready). SIGINT or \
            SIGTERM stops every service gracefully (a second one kills them) and exits 0; exit status 1 when a service \
            is not ready within --ready-timeout. The state (pids, ports, URLs) is kept in <data-dir>/run/launcher.json.

            --postgres postgres://USER[:PASSWORD]@HOST[:PORT][/DATABASE][?sslmode=…] stores each service \
            (not the gateway) in its own database on that server, <prefix><service>: waypoint_auth, waypoint_tour_management, \
            waypoint_analytics (--postgres-prefix). Before anything starts, the launcher connects to DATABASE (default \
            postgres), creates the missing databases (the role needs CREATEDB, or an administrator creates them) and \
            installs PostGIS where the service needs it (tour-management; a superuser's right unless it is there). A URL \
            without a password takes PGPASSWORD. The password is never printed nor written to launcher.json; keep \
            <data-dir>: its launcher-secrets.json holds the key wrapping the personal-data keys stored in the databases. \
            Exit status 1 with the reason on standard error when the server cannot be reached or the role lacks a right. \
            See docs/operations.md.
            """)

    @Flag(help: "Once everything is ready, seed a demo guide, a traveller and three published tours; an administrator, a moderator, a cyclist, three approved Krems paths and one recorded ride (idempotent).")
    var demo = false

    @Option(help: "Directory of the SQLite files, media, bundles and the launcher's state and secrets.")
    var dataDir = "data"

    @Option(help: "The gateway's port; the services take the next six.")
    var basePort = ServiceCatalog.defaultBasePort

    @Option(help: "Kafka bootstrap servers (host:port,…): every service uses Kafka instead of the embedded feed.")
    var kafka: String?

    @Option(help: ArgumentHelp("PostgreSQL instead of SQLite: every service gets its own database on this server, created if missing (see below).",
                               valueName: "url"))
    var postgres: String?

    @Option(help: "With --postgres: prefix of the service databases (<prefix>auth, <prefix>tour_management, …).")
    var postgresPrefix = PostgresServer.defaultDatabasePrefix

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

    @Option(help: "Instances of navigation (1–4); more than one shares one database and needs --postgres. The gateway balances over them.")
    var navigationInstances = 1

    func validate() throws {
        guard (1...65_529).contains(basePort) else { throw ValidationError("--base-port must leave room for seven ports (1…65529)") }
        guard readyTimeout > 0 else { throw ValidationError("--ready-timeout must be positive") }
        guard (1...4).contains(navigationInstances) else { throw ValidationError("--navigation-instances is 1 to 4") }
        if navigationInstances > 1, postgres == nil {
            throw ValidationError("--navigation-instances above 1 needs --postgres: the instances share one database (SQLite is one process's)")
        }
        if let drainTimeout, drainTimeout < 1 { throw ValidationError("--drain-timeout must be at least 1") }
        if let logFormat, !["json", "text"].contains(logFormat) { throw ValidationError("--log-format is json or text") }
        if let postgres {
            do { _ = try PostgresServer(url: postgres, databasePrefix: postgresPrefix) } catch let error as LauncherError { throw ValidationError(error.description) }
        } else if postgresPrefix != PostgresServer.defaultDatabasePrefix {
            throw ValidationError("--postgres-prefix needs --postgres")
        }
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
            console.fail("WAYPOINT_LOG_FORMAT is \(inherited); expected json or text")
            throw ExitCode.failure
        }
        let dataDirectory = URL(fileURLWithPath: dataDir, isDirectory: true, relativeTo: cwd).standardizedFileURL
        let products = ServiceProducts(binDirectory: binPath.map { URL(fileURLWithPath: $0, isDirectory: true, relativeTo: cwd).standardizedFileURL }
                                       ?? ServiceProducts.runningExecutableDirectory())
        do {
            if !noBuild && binPath == nil { try await build(products, cwd: cwd, console: console) }
            let server = try postgres.map { try PostgresServer(url: $0, databasePrefix: postgresPrefix, environment: environment) }
            var options = LaunchPlan.Options(
                basePort: basePort, dataDirectory: dataDirectory, kafkaBrokers: kafka, postgres: server, internalToken: "",
                referenceDataDirectory: ReferenceDataDirectory.locate(environment: environment)?.path,
                logFormat: logFormat ?? environment["WAYPOINT_LOG_FORMAT"] ?? (isatty(1) == 1 ? "text" : "json"),
                drainTimeoutSeconds: drainTimeout, available: products.available(), only: onlyNames)
            options.navigationInstances = navigationInstances
            var storesHeldData: Bool?
            if let server {
                let prepared = try await PostgresProvisioner(server: server).prepare(
                    LaunchPlan(options).postgresDatabases.map { ($0.entry.definition, $0.database) })
                console.say("PostgreSQL at \(server.redacted): " + prepared.map { database in
                    "\(database.database) (\([database.created ? "created" : "existing", database.postgis ? "PostGIS" : nil].compactMap { $0 }.joined(separator: ", ")))"
                }.joined(separator: ", "))
                storesHeldData = prepared.contains(where: \.heldEventLog)
            }
            let secrets = try LauncherSecrets.loadOrCreate(in: dataDirectory, environment: environment, storesHeldData: storesHeldData)
            if secrets.personalDataKey == nil {
                console.say("\(server == nil ? dataDirectory.path : "the PostgreSQL databases") held service data before the launcher's "
                            + "first run on \(dataDirectory.path): personal-data keys stay unwrapped")
            }
            options.internalToken = secrets.internalToken
            options.personalDataKey = secrets.personalDataKey
            let plan = LaunchPlan(options)
            let launcher = PlatformLauncher(plan: plan, products: products, readyTimeout: .seconds(readyTimeout),
                                            inheritedEnvironment: environment, demo: demo, console: console, nameWidth: nameWidth)
            let status = try await launcher.run()
            if status != 0 { throw ExitCode(status) }
        } catch let error as LauncherError {
            console.fail(error.description)
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
