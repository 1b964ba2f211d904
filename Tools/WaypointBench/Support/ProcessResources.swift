#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What the operating system grants and measures for a process: CPU time, resident memory, open-file limit.
enum ProcessResources {
    /// CPU time (user + system, all threads) this process has used so far.
    static func cpuTime() -> Duration {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    /// CPU time (user + system, all threads) process `pid` has used so far (`/proc/<pid>/stat`), or `nil` when it is gone.
    static func cpuTime(pid: Int32) -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state is field 3, utime and stime are fields 14 and 15, in clock ticks.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        return .milliseconds((user + system) * 1_000 / max(1, ticksPerSecond))
    }

    /// The machine's CPU time counters (first line of `/proc/stat`, all CPUs, clock ticks).
    struct HostCPU {
        /// Every state together.
        var total: Int64
        /// `steal`: time a virtual CPU wanted to run while the hypervisor ran something else (other guests).
        var steal: Int64

        /// The share of CPU time stolen between `earlier` and this sample, in percent.
        func stealPercent(since earlier: HostCPU) -> Double {
            Double(steal - earlier.steal) / Double(max(1, total - earlier.total)) * 100
        }
    }

    /// The machine's CPU counters now, or `nil` without `/proc/stat`.
    static func hostCPU() -> HostCPU? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        // user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user already)
        let values = line.split(separator: " ").dropFirst().compactMap { Int64($0) }
        guard values.count >= 8 else { return nil }
        return HostCPU(total: values.prefix(8).reduce(0, +), steal: values[7])
    }

    /// A field of `/proc/<pid>/status` in kibibytes (`VmRSS`, `VmHWM`), or `nil` when the process or field is gone.
    static func statusKibibytes(_ field: String, pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// Resident memory of `pid` in mebibytes (`VmRSS`), or `nil` when it cannot be read.
    static func residentMebibytes(pid: Int32) -> Double? {
        statusKibibytes("VmRSS", pid: pid).map { Double($0) / 1_024 }
    }

    /// The soft limit on open files of `pid` (`Max open files` of `/proc/<pid>/limits`), or `nil`.
    static func openFileLimit(pid: Int32) -> Int? {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
              let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        return line.split(separator: " ").dropFirst(3).first.flatMap { Int($0) }
    }

    /// Raises this process's soft limit on open files towards `wanted`, as far as the hard limit allows. Children
    /// started afterwards inherit it. Returns the soft limit in force afterwards.
    static func raiseOpenFileLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        let target = min(rlim_t(wanted), limit.rlim_max)
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Whether process `pid` still exists (it may be a zombie awaiting its parent).
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
