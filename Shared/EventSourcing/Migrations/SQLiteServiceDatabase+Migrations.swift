import Foundation
import GRDB

extension SQLiteServiceDatabase {
    /// Applies the migrations of `migrations` this database has not recorded yet, in order; returns the names applied now.
    ///
    /// Each runs in its own `BEGIN IMMEDIATE` transaction, which also reads and writes its record, so two processes
    /// opening the same file apply each migration once (the second waits for the write lock, then finds the record).
    @discardableResult
    public func migrate(_ migrations: ServiceMigrations) async throws -> [String] {
        var applied: [String] = []
        for migration in migrations.all {
            let ran = try await write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS \(ServiceMigrations.table) (name TEXT PRIMARY KEY NOT NULL, applied_at_us INTEGER NOT NULL)
                    """)
                let recorded = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(ServiceMigrations.table) WHERE name = ?)",
                                                 arguments: [migration.name]) ?? false
                guard !recorded else { return false }
                try migration.sqlite(db)
                try db.execute(sql: "INSERT INTO \(ServiceMigrations.table) (name, applied_at_us) VALUES (?, ?)",
                               arguments: [migration.name, Date().microsecondsSince1970])
                return true
            }
            if ran { applied.append(migration.name) }
        }
        return applied
    }

    /// The names of the migrations this database has recorded, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        try await read { db in
            guard try db.tableExists(ServiceMigrations.table) else { return [] }
            return try String.fetchAll(db, sql: "SELECT name FROM \(ServiceMigrations.table) ORDER BY applied_at_us, rowid")
        }
    }
}
