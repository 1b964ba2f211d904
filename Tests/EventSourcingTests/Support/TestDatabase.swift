import EventSourcing
import Foundation
import PostgresNIO
import ServiceTesting

/// A fresh, isolated database for one test: a temporary SQLite file or a new PostgreSQL schema.
struct TestDatabase: Sendable {
    let backend: TestBackend
    /// For SQLite: the file path. For PostgreSQL: the schema name.
    let name: String

    init(_ backend: TestBackend) {
        self.backend = backend
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        switch backend {
        case .sqlite: name = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-test-\(token)/service.sqlite").path
        case .postgres: name = "t_\(token)"
        }
    }

    /// Runs `body` with an open event store over this database; every call opens a new store instance, so calling it
    /// twice proves that state survives a restart.
    func withStore<T: Sendable>(
        upcasters: UpcasterChain = UpcasterChain(),
        _ body: @Sendable (any EventStore & SnapshotStore, Connection) async throws -> T
    ) async throws -> T {
        switch backend {
        case .sqlite:
            let database = try SQLiteServiceDatabase(path: name)
            let store = try await SQLiteEventStore(database: database, upcasters: upcasters)
            return try await body(store, .sqlite(database))
        case .postgres:
            let database = try PostgresServiceDatabase(url: try TestBackend.postgresURL, schema: name, maximumConnections: 8)
            return try await database.withRunning {
                let store = try await PostgresEventStore(database: database, upcasters: upcasters)
                return try await body(store, .postgres(database))
            }
        }
    }

    /// Removes the database.
    func drop() async {
        switch backend {
        case .sqlite:
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: name).deletingLastPathComponent())
        case .postgres:
            guard let url = try? TestBackend.postgresURL, let database = try? PostgresServiceDatabase(url: url) else { return }
            _ = try? await database.withRunning {
                try await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(name)\" CASCADE"))
            }
        }
    }

    /// The underlying database, for projections and key stores in the same database as the log.
    enum Connection: Sendable {
        case sqlite(SQLiteServiceDatabase)
        case postgres(PostgresServiceDatabase)
    }
}

/// Runs `body` with a fresh store on `backend` and drops the database afterwards.
func withFreshStore<T: Sendable>(
    _ backend: TestBackend, upcasters: UpcasterChain = UpcasterChain(),
    _ body: @Sendable (any EventStore & SnapshotStore, TestDatabase.Connection) async throws -> T
) async throws -> T {
    let database = TestDatabase(backend)
    do {
        let result = try await database.withStore(upcasters: upcasters, body)
        await database.drop()
        return result
    } catch {
        await database.drop()
        throw error
    }
}

/// A small JSON payload for tests.
struct Note: Codable, Sendable, Equatable {
    var text: String
    var number: Int = 0
}

extension NewEvent {
    /// A `NoteAdded` test event.
    static func note(_ text: String, number: Int = 0, id: UUID = UUID(), metadata: EventMetadata = .init()) -> NewEvent {
        try! NewEvent(eventID: id, eventType: "NoteAdded", encoding: Note(text: text, number: number), metadata: metadata)
    }
}
