#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore

/// nginx as a plain reverse proxy in front of one upstream: the peer the gateway's cost per proxied request is
/// compared with (issue 23). Debian's nginx (`nginx-light` is enough: proxy and upstream keep-alive), installed with
/// apt-get when missing (as root, or through passwordless sudo); its own configuration, logs and temporary paths in a
/// directory of its own; listening on 127.0.0.1 only; one worker; keep-alive connections to the upstream; a buffered
/// access log — what a careful operator would run.
final class NginxPeer {
    /// The Debian package installed when no nginx is found.
    static let package = "nginx-light"
    /// Where Debian and most builds put the binary.
    static let candidates = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx", "/usr/bin/nginx"]

    let directory: URL
    let address: SocketAddress
    let process: Process
    /// The master and its workers (the workers proxy; the master only supervises).
    private(set) var pids: [Int32] = []

    private init(directory: URL, address: SocketAddress, process: Process) {
        self.directory = directory
        self.address = address
        self.process = process
    }

    /// CPU time the master and its workers have used so far.
    func cpuTime() -> Duration {
        pids.reduce(.zero) { $0 + (ProcessResources.cpuTime(pid: $1) ?? .zero) }
    }

    /// The nginx binary: one of ``candidates`` or on `PATH`; installs ``package`` when none is found.
    static func binary(logger: Logger) throws -> String {
        if let found = locate() { return found }
        logger.info("nginx not found: installing Debian's \(package) (apt-get)")
        try install()
        guard let found = locate() else { throw BenchError("\(package) was installed but no nginx binary was found") }
        return found
    }

    private static func locate() -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/nginx" }
        return (candidates + path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `apt-get install -y nginx-light`: directly as root, else through `sudo -n` (never a password prompt); `apt-get
    /// update` first only when the plain install fails (stale package lists).
    private static func install() throws {
        let root = geteuid() == 0
        func aptGet(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: root ? "/usr/bin/env" : "/usr/bin/sudo")
            process.arguments = (root ? [] : ["-n"]) + ["DEBIAN_FRONTEND=noninteractive", "apt-get"] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.standardError
            process.standardError = FileHandle.standardError
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard root || FileManager.default.isExecutableFile(atPath: "/usr/bin/sudo") else {
            throw BenchError("nginx is missing and this user is not root: install it first (apt-get install -y \(package))")
        }
        let install = ["install", "-y", "-q", "--no-install-recommends", package]
        if try aptGet(install) == 0 { return }
        guard try aptGet(["update", "-q"]) == 0, try aptGet(install) == 0 else {
            throw BenchError("could not install \(package) with apt-get\(root ? "" : " (sudo -n)"): install it first (apt-get install -y \(package))")
        }
    }

    /// Starts nginx on a free loopback port in front of `upstream`, in a new directory under `parent`; returns once it
    /// accepts connections.
    static func start(upstream: SocketAddress, parent: URL, logger: Logger) async throws -> NginxPeer {
        let binary = try binary(logger: logger)
        let directory = parent.appendingPathComponent("nginx-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freePort()
        let configuration = directory.appendingPathComponent("nginx.conf")
        try configurationText(directory: directory.path, port: port, upstream: GatewayBench.hostField(upstream))
            .write(to: configuration, atomically: true, encoding: .utf8)
        let console = directory.appendingPathComponent("console.log")
        FileManager.default.createFile(atPath: console.path, contents: nil)
        let output = try FileHandle(forWritingTo: console)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", directory.path + "/", "-c", configuration.path, "-e", directory.appendingPathComponent("error.log").path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let peer = NginxPeer(directory: directory, address: try SocketAddress(ipAddress: "127.0.0.1", port: port), process: process)
        let deadline = ContinuousClock.now + .seconds(10)
        while !isListening(port: port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                await peer.stop()
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                let consoleText = (try? String(contentsOf: console, encoding: .utf8)) ?? ""
                throw BenchError("nginx did not start: \(consoleText) \(log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(100))  // the worker forks after the listener is open
        peer.pids = [process.processIdentifier] + children(of: process.processIdentifier)
        let version = version(binary)
        logger.info("nginx \(version) (\(binary), pids \(peer.pids.map(String.init).joined(separator: ", "))) on 127.0.0.1:\(port) → \(GatewayBench.hostField(upstream)), config \(configuration.path)")
        return peer
    }

    /// SIGQUIT (graceful), then SIGKILL after 5 s; removes the directory.
    func stop() async {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            let deadline = ContinuousClock.now + .seconds(5)
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning {
                for pid in pids.reversed() { kill(pid, SIGKILL) }
                process.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The configuration: one worker, keep-alive to the upstream (32 idle connections, HTTP/1.1 without
    /// `Connection: close`), `X-Forwarded-For`/`-Proto`/`Host` set as a reverse proxy does, `combined` access log
    /// buffered 64 KiB (flushed every second), everything written inside `directory`.
    static func configurationText(directory: String, port: Int, upstream: String) -> String {
        """
        worker_processes 1;
        daemon off;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 4096; }
        http {
            access_log \(directory)/access.log combined buffer=64k flush=1s;
            client_body_temp_path \(directory)/client_body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            keepalive_requests 100000;
            keepalive_timeout 75s;
            upstream backend {
                server \(upstream);
                keepalive 32;
                keepalive_requests 100000;
            }
            server {
                listen 127.0.0.1:\(port);
                location / {
                    proxy_pass http://backend;
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $http_host;
                    proxy_set_header X-Forwarded-For $remote_addr;
                    proxy_set_header X-Forwarded-Proto $scheme;
                }
            }
        }

        """
    }

    private static func version(_ binary: String) -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-v"]
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "?" }
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
    }

    /// Processes whose parent is `pid` (`/proc/*/stat`, field 4).
    static func children(of pid: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// A port nothing listens on at 127.0.0.1 (the kernel's choice for port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw BenchError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func isListening(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// 127.0.0.1:`port` as a socket address (also ``LaunchedPlatform``'s free-port probe).
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }
}
