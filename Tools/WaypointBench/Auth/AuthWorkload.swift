/// The sizes of one `auth` run; the fixed parts (1,000 distinct tokens, 16 refreshing tasks) are the definitions the
/// JSON keys are measured at.
struct AuthWorkload: Sendable, CustomStringConvertible {
    /// Access tokens issued before the verification phases and verified round robin.
    var distinctTokens = 1_000
    /// Verifications of the single-task phase (the JSON figure) and, split evenly, of the two-task phase.
    var verifications: Int
    /// Tasks of the second verification phase (stderr only).
    var verificationTasks = 2
    /// Sessions whose refresh tokens are rotated.
    var sessions: Int
    /// Rotations in total, over all sessions.
    var refreshes: Int
    /// Concurrent refreshing tasks; each owns every `refreshTasks`-th session, so no token is ever presented twice.
    var refreshTasks = 16
    /// Sequential, individually timed logins.
    var logins: Int
    /// bcrypt cost of the service (`WAYPOINT_AUTH_BCRYPT_COST`): every hash and verify of the run.
    var bcryptCost: Int
    /// Concurrent registrations and session-creating logins while setting up (the hasher queues beyond its threads).
    var setupConcurrency = 16
    /// Times `PasswordHasher.verify` is timed on its own, next to the logins.
    var bareVerifies = 5

    var description: String {
        [
            "verify \(verifications) over \(distinctTokens) tokens at c1, then at c\(verificationTasks)",
            "refresh \(refreshes) over \(sessions) sessions at c\(refreshTasks)",
            "\(logins) sequential logins",
            "bcrypt cost \(bcryptCost)",
        ].joined(separator: "; ")
    }
}
