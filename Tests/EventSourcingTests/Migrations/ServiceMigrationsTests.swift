import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import ServiceTesting
import Testing

/// One service database as the migrator sees it, on either backend; several may be opened on the same database
/// (separate pools, like separate processes).
private struct MigratedDatabase: Sendable {
    let connection: TestDatabase.Connection

    func migrate(_ migrations: ServiceMigrations) async throws -> [String] {
        switch connection {
        case .sqlite(let database): try await database.migrate(migrations)
        case .postgres(let database): try await database.migrate(migrations)
        }
    }

    func applied() async throws -> [String] {
        switch connection {
        case .sqlite(let database): try await database.appliedMigrations()
        case .postgres(let database): try await database.appliedMigrations()
        }
    }

    /// Rows of `table`, or `nil` when the table does not exist.
    func rowCount(_ table: String) async throws -> Int? {
        switch connection {
        case .sqlite(let database):
            return try await database.read { db in
                try db.tableExists(table) ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 : nil
            }
        case .postgres(let database):
            guard try await database.tableExists(table) else { return nil }
            for try await count in try await database.client.query("SELECT COUNT(*) FROM \(unescaped: table)", logger: database.logger)
                .decode(Int.self) { return count }
            return 0
        }
    }

    /// Creates `migration_notes` the way a service did before it had migrations, with one row.
    func createTableBeforeMigrator() async throws {
        switch connection {
        case .sqlite(let database):
            try await database.write { db in
                try db.execute(sql: "CREATE TABLE migration_notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO migration_notes (id, text) VALUES (1, 'kept')")
            }
        case .postgres(let database):
            try await database.createSchemaIfNeeded()
            try await database.client.query("CREATE TABLE migration_notes (id bigint PRIMARY KEY, text text NOT NULL)", logger: database.logger)
            try await database.client.query("INSERT INTO migration_notes (id, text) VALUES (1, 'kept')", logger: database.logger)
        }
    }
}

/// Runs `body` with `openers` separate openings of one fresh database on `backend`, then drops it.
private func withFreshDatabase(_ backend: TestBackend, openers: Int = 1,
                               _ body: @Sendable ([MigratedDatabase]) async throws -> Void) async throws {
    let fresh = TestDatabase(backend)
    switch backend {
    case .sqlite:
        do {
            try await body(try (0..<openers).map { _ in MigratedDatabase(connection: .sqlite(try SQLiteServiceDatabase(path: fresh.name))) })
        } catch {
            await fresh.drop()
            throw error
        }
        await fresh.drop()
    case .postgres:
        let pools = try (0..<openers).map { _ in try PostgresServiceDatabase(url: try TestBackend.postgresURL, schema: fresh.name, maximumConnections: 2) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pool in pools { group.addTask { try? await pool.run() } }
            defer { group.cancelAll() }
            do {
                try await body(pools.map { MigratedDatabase(connection: .postgres($0)) })
            } catch {
                await fresh.drop()
                throw error
            }
            await fresh.drop()
        }
    }
}

/// The migrations of the tests: `migration_notes`, then a row in it (not idempotent, so running twice would show).
private func noteMigrations(withRow: Bool = true) -> ServiceMigrations {
    var migrations = ServiceMigrations()
    migrations.migration("2026-11-26-notes", sqlite: { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS migration_notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    }, postgres: { db in
        try await db.execute("CREATE TABLE IF NOT EXISTS migration_notes (id bigint PRIMARY KEY, text text NOT NULL)")
    })
    guard withRow else { return migrations }
    migrations.migration("2026-11-27-first-note", sqlite: { db in
        try db.execute(sql: "INSERT INTO migration_notes (id, text) VALUES (2, 'migrated')")
    }, postgres: { db in
        try await db.execute("INSERT INTO migration_notes (id, text) VALUES (2, \("migrated"))")
    })
    return migrations
}

private struct FailingMigration: Error {}

@Suite("ServiceMigrations")
struct ServiceMigrationsTests {
    @Test("each migration runs once, in order, and is recorded by name", arguments: TestBackend.enabled)
    func runsOnce(backend: TestBackend) async throws {
        try await withFreshDatabase(backend) { databases async throws in
            let database = databases[0]
            #expect(try await database.applied() == [])
            #expect(try await database.migrate(noteMigrations(withRow: false)) == ["2026-11-26-notes"])
            #expect(try await database.migrate(noteMigrations()) == ["2026-11-27-first-note"], "only the new one runs")
            #expect(try await database.migrate(noteMigrations()) == [], "a second open runs nothing")
            #expect(try await database.applied() == ["2026-11-26-notes", "2026-11-27-first-note"])
            #expect(try await database.rowCount("migration_notes") == 1)
            #expect(try await database.rowCount(ServiceMigrations.table) == 2)
        }
    }

    @Test("a database created before the migrator opens with its data and records the first migration", arguments: TestBackend.enabled)
    func existingDatabase(backend: TestBackend) async throws {
        try await withFreshDatabase(backend) { databases async throws in
            let database = databases[0]
            try await database.createTableBeforeMigrator()
            #expect(try await database.migrate(noteMigrations()) == ["2026-11-26-notes", "2026-11-27-first-note"])
            #expect(try await database.rowCount("migration_notes") == 2, "the old row is kept, the new one added")
        }
    }

    @Test("a failing migration leaves neither its changes nor its record; the ones before it stay", arguments: TestBackend.enabled)
    func failingMigration(backend: TestBackend) async throws {
        try await withFreshDatabase(backend) { databases async throws in
            let database = databases[0]
            var migrations = noteMigrations(withRow: false)
            migrations.migration("2026-11-28-broken", sqlite: { db in
                try db.execute(sql: "CREATE TABLE migration_broken (id INTEGER PRIMARY KEY)")
                throw FailingMigration()
            }, postgres: { db in
                try await db.execute("CREATE TABLE migration_broken (id bigint PRIMARY KEY)")
                throw FailingMigration()
            })
            await #expect(throws: FailingMigration.self) { try await database.migrate(migrations) }
            #expect(try await database.applied() == ["2026-11-26-notes"])
            #expect(try await database.rowCount("migration_broken") == nil)
            #expect(try await database.migrate(noteMigrations()) == ["2026-11-27-first-note"], "the fixed history runs on")
        }
    }

    @Test("several openers of one fresh database at once apply each migration exactly once", arguments: TestBackend.enabled)
    func concurrentOpeners(backend: TestBackend) async throws {
        try await withFreshDatabase(backend, openers: 4) { databases async throws in
            let applied = try await withThrowingTaskGroup(of: [String].self) { group in
                for database in databases { group.addTask { try await database.migrate(noteMigrations()) } }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(applied.sorted() == ["2026-11-26-notes", "2026-11-27-first-note"])
            #expect(try await databases[0].rowCount("migration_notes") == 1, "the row migration ran once")
            #expect(try await databases[0].applied() == ["2026-11-26-notes", "2026-11-27-first-note"])
        }
    }

    @Test("declaring histories composes them in order")
    func appending() {
        var first = ServiceMigrations()
        first.migration("a", sqlite: { _ in }, postgres: { _ in })
        var second = ServiceMigrations()
        second.migration("b", sqlite: { _ in }, postgres: { _ in })
        #expect(first.appending(second).names == ["a", "b"])
    }
}
