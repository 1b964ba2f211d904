#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What must hold before anything starts: no other launcher on the data directory, no orphans of a killed one, and
/// free ports.
public enum StartupChecks {
    /// Whether a TCP port can be bound on the IPv4 loopback now.
    public static func isPortFree(_ port: Int, host: String = "127.0.0.1") -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Whether process `pid` exists and runs `executable` (by the basename of `/proc/<pid>/exe`).
    public static func isRunning(pid: Int32, executable: String) -> Bool {
        guard pid > 0, Glibc.kill(pid, 0) == 0 else { return false }
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else { return false }
        return URL(fileURLWithPath: target).lastPathComponent.hasPrefix(executable)
    }

    /// Refuses a second launcher on one data directory, and stops the services a killed launcher left behind (their
    /// pids are in its state file and still run the same executables).
    public static func takeOver(stateFile: URL, console: Console, grace: Duration) async throws {
        guard let previous = try? LauncherState.read(from: stateFile) else { return }
        if previous.launcherPid != getpid(), isRunning(pid: previous.launcherPid, executable: "waypoint"), previous.phase != .stopped {
            throw LauncherError("another launcher (pid \(previous.launcherPid)) runs on \(previous.dataDirectory); stop it first")
        }
        let orphans = previous.services.compactMap { service -> (String, Int32)? in
            guard let pid = service.pid, let executable = service.executable, isRunning(pid: pid, executable: executable) else { return nil }
            return (service.name, pid)
        }
        guard !orphans.isEmpty else { return }
        console.say("stopping what a previous launcher left running: \(orphans.map { "\($0.0) (pid \($0.1))" }.joined(separator: ", "))")
        for (_, pid) in orphans { _ = Glibc.kill(pid, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, orphans.contains(where: { Glibc.kill($0.1, 0) == 0 }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        for (_, pid) in orphans where Glibc.kill(pid, 0) == 0 { _ = Glibc.kill(pid, SIGKILL) }
    }
}
