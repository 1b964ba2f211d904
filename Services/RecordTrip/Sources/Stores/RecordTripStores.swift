import EventSourcing
import GRDB
import Messaging

/// The schema of record-trip's own tables (not its read models, which the projections keep, nor `erased_riders`, which
/// the `waypoint.auth` consumer keeps). Append new migrations, never edit a shipped one.
///
/// | table | what | store |
/// |---|---|---|
/// | `rider_erasures_applied` | erased riders whose key and trips are gone | ``ErasedUsersStore`` |
public enum RecordTripMigrations {
    /// Every migration, in order.
    public static let all: ServiceMigrations = {
        var migrations = ServiceMigrations()
        migrations.migration("2026-11-26-record-trip", sqlite: { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS rider_erasures_applied (user_id TEXT PRIMARY KEY, applied_at_us INTEGER NOT NULL)")
        }, postgres: { db in
            try await db.execute("CREATE TABLE IF NOT EXISTS rider_erasures_applied (user_id uuid PRIMARY KEY, applied_at timestamptz NOT NULL)")
        })
        return migrations
    }()
}

/// record-trip's stores on the configured backend, opened once by the composition root after the migrations ran: the
/// one place the service chooses between SQLite and PostgreSQL.
public struct RecordTripStores: Sendable {
    /// The `trips` read model's reads.
    public let trips: any TripReadStore
    /// Erased riders still to handle.
    public let erasures: any ErasedUsersStore

    /// Applies ``RecordTripMigrations``, then opens every store.
    public static func open(_ storage: ServiceStorage) async throws -> RecordTripStores {
        try await storage.migrate(RecordTripMigrations.all)
        return storage.backend(
            sqlite: { RecordTripStores(trips: SQLiteTripReadStore(database: $0), erasures: SQLiteErasedUsersStore(database: $0, tables: .erasedRiders)) },
            postgres: { RecordTripStores(trips: PostgresTripReadStore(database: $0), erasures: PostgresErasedUsersStore(database: $0, tables: .erasedRiders)) })
    }
}

extension ErasedUsersTables {
    /// record-trip's: `erased_riders` (the `waypoint.auth` consumer) and `rider_erasures_applied`.
    public static let erasedRiders = ErasedUsersTables(erased: "erased_riders", applied: "rider_erasures_applied")
}
