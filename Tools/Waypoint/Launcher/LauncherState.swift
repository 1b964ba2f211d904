import Foundation

/// What the launcher is running, as `<data dir>/run/launcher.json`: rewritten (atomically) at every change, so operators
/// and tests find a process's pid, port and state without parsing the console.
public struct LauncherState: Codable, Sendable, Hashable {
    /// The launcher as a whole.
    public enum Phase: String, Codable, Sendable {
        /// Building and starting; not every service is ready yet.
        case starting
        /// Every started service became ready once (a restarting one shows in its own state).
        case running
        /// Stopping after SIGINT/SIGTERM.
        case stopping
        /// Everything stopped; the launcher has exited or is exiting.
        case stopped
        /// Start-up failed (a service was not ready in time); everything is being stopped.
        case failed
    }

    /// One service.
    public enum ServiceState: String, Codable, Sendable {
        /// The package has no such executable yet.
        case notBuilt = "not-built"
        /// Built but left out by `--only`.
        case disabled
        /// Running, `/health/ready` not answering 200 yet.
        case starting
        /// `/health/ready` answered 200.
        case ready
        /// Exited on its own; waiting for the back-off delay before the next start.
        case restarting
        /// Asked to stop (SIGTERM sent).
        case stopping
        case stopped
    }

    public struct Service: Codable, Sendable, Hashable {
        public var name: String
        public var port: Int
        public var url: String
        public var executable: String?
        public var pid: Int32?
        public var state: ServiceState
        /// Restarts after crashes since the launcher started.
        public var restarts: Int
        /// How the last process ended (`exit status 1`, `signal 9 (SIGKILL)`), if one did.
        public var lastExit: String?
        public var readyAt: Date?

        public init(name: String, port: Int, url: String, executable: String?, pid: Int32? = nil, state: ServiceState,
                    restarts: Int = 0, lastExit: String? = nil, readyAt: Date? = nil) {
            self.name = name
            self.port = port
            self.url = url
            self.executable = executable
            self.pid = pid
            self.state = state
            self.restarts = restarts
            self.lastExit = lastExit
            self.readyAt = readyAt
        }
    }

    public var launcherPid: Int32
    public var phase: Phase
    public var gatewayURL: String
    public var dataDirectory: String
    /// `embedded` or `kafka`.
    public var transport: String
    public var kafkaBrokers: String?
    /// `sqlite` or `postgres` (absent in files of launchers before `--postgres`).
    public var storage: String?
    /// With `--postgres`: the server without its password, and each service's database.
    public var postgres: Postgres?
    public var startedAt: Date
    public var updatedAt: Date
    public var services: [Service]

    /// Where the services store, with `--postgres`; the URL's password is never written.
    public struct Postgres: Codable, Sendable, Hashable {
        /// `postgres://user:***@host:port` (`***` where the URL had a password).
        public var server: String
        /// Service name → database name.
        public var databases: [String: String]
    }

    /// The service named `name`.
    public func service(_ name: String) -> Service? { services.first { $0.name == name } }

    /// `<data dir>/run/launcher.json`.
    public static func fileURL(dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("run", isDirectory: true).appendingPathComponent("launcher.json")
    }

    /// Writes the state to a temporary file and renames it over `url`, so a reader never sees half a document.
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(launcherPid).tmp")
        try Self.encoder.encode(self).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Reads a state file.
    public static func read(from url: URL) throws -> LauncherState {
        try decoder.decode(LauncherState.self, from: Data(contentsOf: url))
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
