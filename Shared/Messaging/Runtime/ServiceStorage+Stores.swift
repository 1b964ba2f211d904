import EventSourcing

extension ServiceStorage {
    /// Applies the service's migrations its database has not recorded yet (``ServiceMigrations``); a service's
    /// composition root calls it once, before it opens any store. Returns the names applied now.
    @discardableResult
    public func migrate(_ migrations: ServiceMigrations) async throws -> [String] {
        if let sqlite { return try await sqlite.migrate(migrations) }
        guard let postgres else { preconditionFailure("ServiceStorage has neither a SQLite nor a PostgreSQL database") }
        return try await postgres.migrate(migrations)
    }

    /// The one place a service forks on its backend: `sqlite` on the embedded database, `postgres` on PostgreSQL.
    /// A composition root builds each feature's store with it, e.g.
    /// `storage.backend(sqlite: { SQLiteExchangeRateStore(database: $0) }, postgres: { PostgresExchangeRateStore(database: $0) })`.
    public func backend<T>(sqlite: (SQLiteServiceDatabase) throws -> T, postgres: (PostgresServiceDatabase) throws -> T) rethrows -> T {
        if let database = self.sqlite { return try sqlite(database) }
        guard let database = self.postgres else { preconditionFailure("ServiceStorage has neither a SQLite nor a PostgreSQL database") }
        return try postgres(database)
    }
}
