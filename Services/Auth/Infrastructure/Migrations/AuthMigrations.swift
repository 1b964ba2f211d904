import EventSourcing
import GRDB

/// The schema of auth's own tables (its read model, the directory, folds the log in memory): applied once at start by
/// the composition root (`AuthServer.assemble`); append new migrations, never edit a shipped one.
///
/// | table | what | store |
/// |---|---|---|
/// | `auth_signing_keys` | the access-token signing keys, private keys as PEM | ``SigningKeyStorage`` |
public enum AuthMigrations {
    /// Every migration, in order.
    public static let all: ServiceMigrations = {
        var migrations = ServiceMigrations()
        // The table as the key storages created it before the migrator: `IF NOT EXISTS` makes it a no-op on those databases.
        migrations.migration("2026-11-26-auth", sqlite: { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS auth_signing_keys (
                    kid TEXT PRIMARY KEY NOT NULL,
                    private_key_pem TEXT NOT NULL,
                    created_at_us INTEGER NOT NULL,
                    retired_at_us INTEGER)
                """)
        }, postgres: { db in
            try await db.execute("""
                CREATE TABLE IF NOT EXISTS auth_signing_keys (
                    kid text PRIMARY KEY,
                    private_key_pem text NOT NULL,
                    created_at timestamptz NOT NULL,
                    retired_at timestamptz)
                """)
        })
        return migrations
    }()
}
