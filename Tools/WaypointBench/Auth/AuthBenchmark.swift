import Auth
import AuthInfrastructure
import Contracts
import Foundation
import Logging
import ServiceKit

/// The measurements of one `auth` run, in order, against one assembled service.
///
/// Token verification first (it needs only the service's key ring), then the accounts every later phase uses, the
/// sequential logins interleaved with a few bare bcrypt verifies, and last the sessions and their refresh-token rotations. Everything
/// goes through `AuthCommands`, the path the HTTP routes call: directory sync, the decision, the event append with
/// its durable commit, token issuing.
struct AuthBenchmark: Sendable {
    let server: AuthServer
    let workload: AuthWorkload
    let logger: Logger

    private static let password = "Bench-passw0rd"

    /// Sessions a user may hold before a login revokes the oldest: phases stay below it, so no login revokes.
    private var sessionsPerUser: Int { server.configuration.settings.maximumSessionsPerUser }

    func run() async throws -> AuthFigures {
        let verification = TokenVerificationBench(
            keyRing: server.keyRing, issuer: server.configuration.service.jwtIssuer,
            audience: server.configuration.service.jwtAudience, workload: workload, logger: logger)
        let jwtVerify = try await verification.run()

        let sessionUsers = (workload.sessions + sessionsPerUser - 1) / sessionsPerUser
        let loginUsers = (workload.logins + sessionsPerUser - 1) / sessionsPerUser
        let registered = try await Throughput.measure(sessionUsers + loginUsers) {
            try await Self.forEach(sessionUsers + loginUsers, concurrency: workload.setupConcurrency) { user in
                _ = try await server.commands.register(RegisterRequest(
                    username: "bench\(user)", email: Self.email(user), password: Self.password, role: .traveller))
            }
        }
        logger.info("setup: register \(registered) users")

        let (logins, bareVerify) = try await timeLogins(firstUser: sessionUsers)
        let share = bareVerify.percentile(0.50) / max(logins.percentile(0.50), .leastNonzeroMagnitude) * 100
        logger.info("login: a bare bcrypt verify (p50) is \(String(format: "%.0f", share)) % of the login p50")

        let sessions = try await startSessions()
        let refresh = try await rotate(sessions)
        logger.info("refresh c\(workload.refreshTasks): \(refresh) rotations")
        try await checkGenerations(of: sessions)
        return AuthFigures(jwtVerify: jwtVerify, refresh: refresh, login: logins, bcryptCost: workload.bcryptCost)
    }

    /// `logins` sequential logins, each timed, of users from `firstUser` on (at most `sessionsPerUser` each), with a
    /// bare `PasswordHasher.verify` at the service's cost timed every `logins / bareVerifies` logins, so that both are
    /// sampled under the same machine load; returns the login and the bare-verify latencies.
    private func timeLogins(firstUser: Int) async throws -> (logins: Latencies, bareVerifies: Latencies) {
        let clock = ContinuousClock()
        var start = clock.now
        let hash = try await server.hasher.hash(Self.password)
        logger.info("bcrypt cost \(server.hasher.cost): one bare hash \(String(format: "%.1f", (clock.now - start).seconds * 1_000)) ms")
        var logins = Latencies()
        var verifies = Latencies()
        let every = max(1, workload.logins / workload.bareVerifies)
        let phase = try await Throughput.measure(workload.logins) {
            for login in 0..<workload.logins {
                if login % every == every / 2 {
                    start = clock.now
                    guard await server.hasher.verify(Self.password, against: hash) else {
                        throw BenchmarkFailure("the password did not verify against its own hash")
                    }
                    verifies.record(clock.now - start)
                }
                start = clock.now
                _ = try await server.commands.login(
                    email: Self.email(firstUser + login / sessionsPerUser), password: Self.password, deviceId: "login-\(login)")
                logins.record(clock.now - start)
            }
        }
        logger.info("login: \(phase) logins (the wall and cpu times include \(verifies.milliseconds.count) bare verifies)")
        logger.info("login: \(logins)")
        logger.info("bcrypt cost \(server.hasher.cost): bare verify \(verifies)")
        return (logins, verifies)
    }

    /// Logs in `sessions` times (at most `sessionsPerUser` times per user, on `setupConcurrency` tasks) and returns the
    /// sessions with their first refresh tokens.
    private func startSessions() async throws -> [BenchSession] {
        var sessions: [BenchSession?] = Array(repeating: nil, count: workload.sessions)
        let concurrency = workload.setupConcurrency
        let started = try await Throughput.measure(workload.sessions) {
            try await withThrowingTaskGroup(of: [(Int, BenchSession)].self) { group in
                for worker in 0..<min(concurrency, workload.sessions) {
                    group.addTask {
                        var mine: [(Int, BenchSession)] = []
                        for index in stride(from: worker, to: workload.sessions, by: concurrency) {
                            let device = "device-\(index)"
                            let issued = try await server.commands.login(
                                email: Self.email(index / sessionsPerUser), password: Self.password, deviceId: device)
                            mine.append((index, BenchSession(id: issued.sessionId, token: issued.refreshToken, device: device)))
                        }
                        return mine
                    }
                }
                for try await batch in group {
                    for (index, session) in batch { sessions[index] = session }
                }
            }
        }
        logger.info("setup: log in \(started) sessions")
        return sessions.map { $0! }
    }

    /// `refreshes` rotations on `refreshTasks` tasks. Task `t` owns sessions `t`, `t + refreshTasks`, … and rotates them
    /// round robin, each time presenting the refresh token the previous rotation of that session returned.
    private func rotate(_ sessions: [BenchSession]) async throws -> Throughput {
        let tasks = workload.refreshTasks
        let shares = (0..<tasks).map { task in
            (owned: stride(from: task, to: sessions.count, by: tasks).map { sessions[$0] },
             rotations: workload.refreshes / tasks + (task < workload.refreshes % tasks ? 1 : 0))
        }
        return try await Throughput.measure(workload.refreshes) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for share in shares {
                    group.addTask {
                        var owned = share.owned
                        for rotation in 0..<share.rotations {
                            let slot = rotation % owned.count
                            let issued = try await server.commands.refresh(token: owned[slot].token, deviceId: owned[slot].device)
                            owned[slot].token = issued.refreshToken
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Every rotation must have advanced its session by one generation, and no session may have been revoked.
    private func checkGenerations(of sessions: [BenchSession]) async throws {
        try await server.directory.sync()
        var rotations = 0
        for session in sessions {
            guard let record = server.directory.session(session.id) else {
                throw BenchmarkFailure("session \(session.id) is missing from the directory")
            }
            guard record.revocation == nil else {
                throw BenchmarkFailure("session \(session.id) was revoked (\(String(describing: record.revocation)))")
            }
            rotations += record.generation - 1
        }
        guard rotations == workload.refreshes else {
            throw BenchmarkFailure("the sessions record \(rotations) rotations, \(workload.refreshes) were made")
        }
    }

    private static func email(_ user: Int) -> String { "bench\(user)@example.com" }

    /// Runs `body` for every index below `count` on `concurrency` tasks.
    private static func forEach(_ count: Int, concurrency: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<min(concurrency, count) {
                group.addTask {
                    for index in stride(from: worker, to: count, by: concurrency) { try await body(index) }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// A session of the refresh phase: its id, its current refresh token and the device it is bound to.
struct BenchSession: Sendable {
    let id: UUID
    var token: String
    let device: String
}
