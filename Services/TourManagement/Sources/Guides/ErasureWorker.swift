import EventSourcing
import Foundation
import GRDB
import Logging
import Messaging
import PostgresNIO
import ServiceKit
import ServiceLifecycle

/// Carries out `UserErased` in tour-management's own data, durably: the `waypoint.auth` consumer marks the account
/// erased in `guide_accounts` (in its transaction); this worker then erases what the person wrote (their key and their
/// reviews, ``ReviewCommands/eraseAuthor(_:)``, idempotent) and records it in `erasures_applied`. A crash between the two
/// only means the next round does it again.
public struct ErasureWorker: Service {
    let reviews: ReviewCommands
    let sqlite: SQLiteServiceDatabase?
    let postgres: PostgresServiceDatabase?
    let projections: [any ProjectionRunning]
    let interval: Duration
    let logger: Logger

    public init(reviews: ReviewCommands, storage: ServiceStorage, after projections: [any ProjectionRunning], interval: Duration = .seconds(2),
                logger: Logger) {
        self.reviews = reviews
        sqlite = storage.sqlite
        postgres = storage.postgres
        self.projections = projections
        self.interval = interval
        self.logger = logger
    }

    /// Applies pending erasures every `interval` (the first time as soon as the read models are live) until graceful
    /// shutdown.
    public func run() async throws {
        try await PeriodicWorker("erasure", every: interval, after: projections, logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Erases every account marked erased and not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await pendingUsers()
        for user in pending {
            try await reviews.eraseAuthor(user)
            try await markApplied(user)
            logger.notice("erased account's content removed", metadata: ["user": "\(user)"])
        }
        return pending.count
    }

    private func pendingUsers() async throws -> [UUID] {
        if let sqlite {
            return try await sqlite.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS erasures_applied (user_id TEXT PRIMARY KEY, applied_at DATETIME NOT NULL)")
                guard try db.tableExists("guide_accounts") else { return [] }
                return try String.fetchAll(db, sql: """
                    SELECT user_id FROM guide_accounts WHERE status = 'erased'
                        AND user_id NOT IN (SELECT user_id FROM erasures_applied) LIMIT 100
                    """).compactMap(UUID.init(uuidString:))
            }
        }
        let database = postgres!
        try await database.client.query(
            "CREATE TABLE IF NOT EXISTS erasures_applied (user_id uuid PRIMARY KEY, applied_at timestamptz NOT NULL)", logger: database.logger)
        guard try await database.tableExists("guide_accounts") else { return [] }
        var users: [UUID] = []
        for try await (id) in try await database.client.query("""
            SELECT user_id FROM guide_accounts WHERE status = 'erased'
                AND user_id NOT IN (SELECT user_id FROM erasures_applied) LIMIT 100
            """, logger: database.logger).decode(UUID.self) {
            users.append(id)
        }
        return users
    }

    private func markApplied(_ user: UUID) async throws {
        if let sqlite {
            try await sqlite.write { db in
                try db.execute(sql: "INSERT OR IGNORE INTO erasures_applied (user_id, applied_at) VALUES (?, ?)",
                               arguments: [user.uuidString.lowercased(), Date()])
            }
            return
        }
        try await postgres!.client.query(
            "INSERT INTO erasures_applied (user_id, applied_at) VALUES (\(user), now()) ON CONFLICT (user_id) DO NOTHING", logger: postgres!.logger)
    }
}
