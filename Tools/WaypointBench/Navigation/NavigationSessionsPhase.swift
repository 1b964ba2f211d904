import Foundation
import NIOCore
import NIOHTTP1

extension PhaseContext {
    /// `sessions` sessions at once, each sending one fix a second for `sessionSeconds` seconds along its route (5 m
    /// apart at 5 m/s), spread evenly over the second: the open-loop generator (``OpenLoopLoad``) with one target and
    /// one keep-alive connection per session, so a session's fixes go one after the other on its own connection, as
    /// from a phone; a fix due while the previous one is unanswered waits, and the wait counts in its latency. Sent to
    /// navigation's own port (`--sessions-via service`) or through the gateway. The sessions are started beforehand
    /// (untimed, 16 at a time).
    func concurrentSessions() async throws -> NavigationFigures.SessionFigures {
        let count = settings.sessions, seconds = settings.sessionSeconds
        let via = settings.sessionsViaGateway ? "gateway" : "service"
        let port = settings.sessionsViaGateway ? platform.gatewayPort : platform.navigationPort
        let limit = ProcessResources.raiseOpenFileLimit(to: count * 3 + 4_096)
        logger.info("sessions: open-file limit \(limit)")
        let pairs = cities.pairs(count: count + count / 20 + 10, minimumMetres: 800, seed: settings.seed &+ 7)
        let planned = Date()
        let riders = Array(try await startRiders(pairs, clockStart: { planned }, label: "sessions").prefix(count))
        guard riders.count == count else { throw BenchError("sessions: only \(riders.count) of \(count) started") }
        let address = try Self.socketAddress(port: port)
        let targets = try riders.enumerated().map { index, rider in
            LoadTarget(name: "session \(index)", address: address, host: "127.0.0.1:\(port)",
                       headers: ["Authorization": "Bearer \(rider.token)", "User-Agent": "waypoint-bench-navigation"],
                       sources: [try LoopbackClients.address(block: 41, client: index)])
        }
        // Fix k of every session is due in second k; the fix's own time is the plan's clock plus k seconds (never
        // ahead of the server's clock: the run starts after `planned`).
        var plan: [PlannedRequest] = []
        plan.reserveCapacity(count * seconds)
        let rides = riders.map { $0.ride.fixes(spacing: BenchRider.speed, to: BenchRider.speed * Double(seconds + 1)) }
        for second in 0..<seconds {
            for (index, rider) in riders.enumerated() {
                let ride = rides[index]
                let fix = ride[min(second, ride.count - 1)]
                let body = RideAlong.body(fix, speed: BenchRider.speed, time: planned.addingTimeInterval(Double(second)))
                plan.append(PlannedRequest(target: index, method: .POST, path: NavigationRequests.positionsPath(rider.session), body: ByteBuffer(string: body)))
            }
        }
        logger.info("sessions: \(count) sessions × \(seconds) fixes at \(count)/s via \(via), one connection each (clients 127.41.x.y)")
        let cpuBefore = ProcessResources.cpuTime()
        let records = try await OpenLoopLoad.run(targets: targets, plan: plan, rate: Double(count), timeout: .seconds(10), on: loop)
        let cpu = ProcessResources.cpuTime() - cpuBefore
        var failedSessions = Set<Int>()
        for (index, outcome) in records.outcomes.enumerated() where outcome.isError { failedSessions.insert(records.plan[index].target) }
        let latencies = records.latencies()
        let ok = records.outcomes.count { !$0.isError }
        let okRate = Double(ok) / max(records.wallTime.seconds, 0.001)
        logger.info("""
            sessions: \(latencies); \(ok) of \(records.plan.count) answered 200 (\(String(format: "%.0f", okRate))/s over the whole run), \
            errors \(records.errors) \(records.errorBreakdown) \(records.errorSamples(3)); sessions with an error \(failedSessions.count); \
            sent \(String(format: "%.1f", records.achievedRate))/s, send lag \(records.sendLag), queued behind their previous fix \(records.queued), \
            reconnects \(records.reconnects), connect failures \(records.connectFailures); process CPU \
            \(String(format: "%.0f", cpu.seconds / max(records.wallTime.seconds, 0.001) * 100)) % of a core; load average \(NavigationServiceBench.loadAverage())
            """)
        return NavigationFigures.SessionFigures(via: via, sessions: count, held: count - failedSessions.count, seconds: seconds, fixes: records.plan.count,
                                                errors: records.errors, errorBreakdown: records.errorBreakdown, achievedFixRate: records.achievedRate,
                                                update: latencies)
    }
}
