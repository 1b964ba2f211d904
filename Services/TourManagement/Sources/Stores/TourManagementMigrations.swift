import EventSourcing
import GRDB

/// The schema of tour-management's own tables (not its read models: projections and the `waypoint.auth` consumer keep
/// their tables themselves, versioned by ``ProjectionSchema/schemaVersion``). The composition root applies them once
/// at start (``TourManagementServer/assemble(_:storage:logger:)``); append new migrations, never edit a shipped one.
///
/// | table | what | store |
/// |---|---|---|
/// | `destinations` | the gazetteer's cities | ``DestinationStore`` |
/// | `media` | uploaded media objects and their references | ``MediaCatalog`` |
/// | `exchange_rates` | operators' rates per currency | ``ExchangeRateStore`` |
/// | `payment_settings`, `payment_sandbox_sessions` | the sandbox webhook secret and checkouts | ``PaymentRecords`` |
/// | `bundle_signing_keys` | the Ed25519 key signing offline bundles | ``BundleSigningKeyStore`` |
/// | `erasures_applied` | erased accounts whose content was removed | ``ErasureStore`` |
public enum TourManagementMigrations {
    /// Every migration, in order.
    public static let all: ServiceMigrations = {
        var migrations = ServiceMigrations()
        // The tables as the stores created them before the migrator: `IF NOT EXISTS` makes it a no-op on those databases.
        migrations.migration("2026-11-26-tour-management", sqlite: createSQLiteTables, postgres: createPostgresTables)
        return migrations
    }()

    private static func createSQLiteTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS destinations (
                id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, lat REAL NOT NULL, lng REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS media (
                sha256 TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,
                uploaded_at DATETIME NOT NULL, uploaded_by TEXT NOT NULL, referenced_at DATETIME);
            CREATE INDEX IF NOT EXISTS media_unreferenced ON media (uploaded_at) WHERE referenced_at IS NULL;
            CREATE TABLE IF NOT EXISTS exchange_rates (currency TEXT PRIMARY KEY NOT NULL, rate TEXT NOT NULL, updated_at_us INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS payment_settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS payment_sandbox_sessions (purchase_id TEXT PRIMARY KEY NOT NULL, session TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS bundle_signing_keys (key_id TEXT PRIMARY KEY, private_key TEXT NOT NULL, created_at DATETIME NOT NULL);
            CREATE TABLE IF NOT EXISTS erasures_applied (user_id TEXT PRIMARY KEY, applied_at DATETIME NOT NULL);
            """)
        // Databases from before `unreferenced_since` existed got it added on open; SQLite has no `ADD COLUMN IF NOT EXISTS`.
        if try !db.columns(in: "media").contains(where: { $0.name == "unreferenced_since" }) {
            try db.execute(sql: "ALTER TABLE media ADD COLUMN unreferenced_since DATETIME")
        }
    }

    private static func createPostgresTables(_ db: PostgresMigrationConnection) async throws {
        try await db.execute("""
            CREATE TABLE IF NOT EXISTS destinations (
                id bigint PRIMARY KEY, name text NOT NULL, country text NOT NULL,
                lat double precision NOT NULL, lng double precision NOT NULL)
            """)
        try await db.execute("""
            CREATE TABLE IF NOT EXISTS media (
                sha256 text PRIMARY KEY, kind text NOT NULL, content_type text NOT NULL, size bigint NOT NULL,
                uploaded_at timestamptz NOT NULL, uploaded_by text NOT NULL, referenced_at timestamptz)
            """)
        try await db.execute("CREATE INDEX IF NOT EXISTS media_unreferenced ON media (uploaded_at) WHERE referenced_at IS NULL")
        try await db.execute("ALTER TABLE media ADD COLUMN IF NOT EXISTS unreferenced_since timestamptz")
        try await db.execute("""
            CREATE TABLE IF NOT EXISTS exchange_rates (currency text PRIMARY KEY, rate text NOT NULL, updated_at_us bigint NOT NULL)
            """)
        try await db.execute("CREATE TABLE IF NOT EXISTS payment_settings (key text PRIMARY KEY, value text NOT NULL)")
        try await db.execute("CREATE TABLE IF NOT EXISTS payment_sandbox_sessions (purchase_id uuid PRIMARY KEY, session text NOT NULL)")
        try await db.execute("""
            CREATE TABLE IF NOT EXISTS bundle_signing_keys (key_id text PRIMARY KEY, private_key text NOT NULL, created_at timestamptz NOT NULL)
            """)
        try await db.execute("CREATE TABLE IF NOT EXISTS erasures_applied (user_id uuid PRIMARY KEY, applied_at timestamptz NOT NULL)")
    }
}
