import ArgumentParser
import AuthInfrastructure
import Foundation

/// `waypoint-bench auth`: access-token verification, refresh-token rotation and login latency of the `auth` service.
struct AuthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Measures access-token verification, refresh-token rotation and login latency.",
        discussion: """
            Verification uses ServiceKit's AccessTokenVerifier on tokens issued by auth's AccessTokenIssuer. Refresh \
            and login drive the real auth service (assembled as `auth serve` does, on SQLite in a temporary data \
            directory) through its commands, not over HTTP.
            """
    )

    @Option(help: "Access-token verifications on one task (over 1,000 distinct tokens, round robin).")
    var verifications = 50_000

    @Option(help: "Refresh-token rotations in total, by 16 concurrent tasks.")
    var refreshes = 10_000

    @Option(help: "Sessions whose refresh tokens are rotated (at least 16).")
    var sessions = 200

    @Option(help: "Sequential logins, each timed.")
    var logins = 50

    @Option(help: "bcrypt cost of the service (WAYPOINT_AUTH_BCRYPT_COST).")
    var bcryptCost = 12

    @Option(help: "Directory for the temporary data directory (default: the system temporary directory).")
    var directory: String?

    func validate() throws {
        guard verifications > 0, refreshes > 0, logins > 0 else {
            throw ValidationError("--verifications, --refreshes and --logins must be positive")
        }
        guard sessions >= 16 else { throw ValidationError("--sessions must be at least 16 (one per refreshing task)") }
        guard PasswordHasher.allowedCosts.contains(bcryptCost) else {
            throw ValidationError("--bcrypt-cost must be in \(PasswordHasher.allowedCosts)")
        }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.auth")
        let workload = AuthWorkload(
            verifications: verifications, sessions: sessions, refreshes: refreshes, logins: logins, bcryptCost: bcryptCost)
        logger.info("configuration: \(workload)")
        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let figures = try await AuthServiceBench.run(workload: workload, parentDirectory: parent, logger: logger)
        try BenchOutput.printJSON(figures)
    }
}
