import GRDB

/// Named positions kept in a service's own database: how far a relay has published, or how far a consumer has read
/// another service's feed. Projections keep theirs in the same table, inside their batch transactions.
public protocol CheckpointStore: Sendable {
    /// The stored position, 0 when none.
    func position(of name: String) async throws -> Int64
    /// Stores a position (monotonic: a lower position never replaces a higher one).
    func save(_ position: Int64, for name: String) async throws
}

/// Checkpoints in a SQLite service database.
public struct SQLiteCheckpointStore: CheckpointStore {
    let database: SQLiteServiceDatabase

    /// Opens the checkpoint table, creating it if needed.
    public init(database: SQLiteServiceDatabase) async throws {
        self.database = database
        try await database.write { db in try SQLiteCheckpoints.migrate(db) }
    }

    public func position(of name: String) async throws -> Int64 {
        try await database.read { db in try SQLiteCheckpoints.load(name, db)?.position ?? 0 }
    }

    public func save(_ position: Int64, for name: String) async throws {
        try await database.write { db in try Self.save(position, for: name, in: db) }
    }

    /// Reads a position inside an open transaction (for consumers that store it with their rows).
    public static func position(of name: String, in db: Database) throws -> Int64 {
        try SQLiteCheckpoints.load(name, db)?.position ?? 0
    }

    /// Stores a position inside an open transaction (monotonic).
    public static func save(_ position: Int64, for name: String, in db: Database) throws {
        let stored = try SQLiteCheckpoints.load(name, db)
        guard position > stored?.position ?? -1 else { return }
        try SQLiteCheckpoints.save(name, position: position, generation: stored?.generation ?? 1, db)
    }
}
