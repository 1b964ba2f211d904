import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The consumer name of the `waypoint.auth` → `guide_accounts` handler (its dedupe records and source position).
enum GuideAccountsConsumer {
    static let name = "guide_accounts"
}

/// Keeps `guide_accounts` from `waypoint.auth` on SQLite, and tells ``GuideProfiles`` (when given) which cached profiles
/// went stale. Runs inside the consumer's transaction, with the dedupe record.
public struct SQLiteGuideAccountsHandler: SQLiteEventHandler {
    public let name = GuideAccountsConsumer.name
    let profiles: GuideProfiles?

    public init(profiles: GuideProfiles? = nil) {
        self.profiles = profiles
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS guide_accounts (
                user_id TEXT PRIMARY KEY, role TEXT, granted_roles TEXT NOT NULL, status TEXT NOT NULL,
                profile_version INTEGER NOT NULL, profile_updated_at_us INTEGER, updated_at_us INTEGER NOT NULL) WITHOUT ROWID
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard let decoded = try AuthAccountEvent.decode(event) else { return }
        let current = try Row.fetchOne(db, sql: "SELECT * FROM guide_accounts WHERE user_id = ?",
                                       arguments: [decoded.userId.uuidString.lowercased()]).map(Self.row)
        let (row, effect) = GuideAccountFold.apply(decoded, to: current)
        if let row {
            try db.execute(sql: """
                INSERT OR REPLACE INTO guide_accounts (user_id, role, granted_roles, status, profile_version, profile_updated_at_us,
                    updated_at_us) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [row.userId.uuidString.lowercased(), row.role?.rawValue, row.grantedRolesText, row.status.rawValue,
                                 row.profileVersion, row.profileUpdatedAt?.microsecondsSince1970, row.updatedAt.microsecondsSince1970])
        }
        profiles?.apply(effect, to: decoded.userId)
    }

    static func row(_ row: Row) -> GuideAccount {
        GuideAccount(
            userId: UUID(uuidString: row["user_id"])!, role: (row["role"] as String?).flatMap(UserRole.init(rawValue:)),
            grantedRoles: GuideAccount.grantedRoles(row["granted_roles"]),
            status: GuideAccountStatus(rawValue: row["status"]) ?? .active, profileVersion: row["profile_version"],
            profileUpdatedAt: (row["profile_updated_at_us"] as Int64?).map { Date(microsecondsSince1970: $0) },
            updatedAt: Date(microsecondsSince1970: row["updated_at_us"]))
    }
}

/// Keeps `guide_accounts` from `waypoint.auth` on PostgreSQL (same semantics as ``SQLiteGuideAccountsHandler``).
public struct PostgresGuideAccountsHandler: PostgresEventHandler {
    public let name = GuideAccountsConsumer.name
    let profiles: GuideProfiles?

    public init(profiles: GuideProfiles? = nil) {
        self.profiles = profiles
    }

    static let columns = "user_id, role, granted_roles, status, profile_version, profile_updated_at, updated_at"

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS guide_accounts (
                user_id uuid PRIMARY KEY, role text, granted_roles text NOT NULL, status text NOT NULL,
                profile_version int NOT NULL, profile_updated_at timestamptz, updated_at timestamptz NOT NULL)
            """, logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard let decoded = try AuthAccountEvent.decode(event) else { return }
        var current: GuideAccount?
        let select: PostgresQuery = "SELECT \(unescaped: Self.columns) FROM guide_accounts WHERE user_id = \(decoded.userId)"
        for try await row in try await connection.query(select, logger: connection.logger) { current = try Self.row(row) }
        let (row, effect) = GuideAccountFold.apply(decoded, to: current)
        if let row {
            try await connection.query("""
                INSERT INTO guide_accounts (\(unescaped: Self.columns))
                VALUES (\(row.userId), \(row.role?.rawValue), \(row.grantedRolesText), \(row.status.rawValue), \(Int32(row.profileVersion)),
                    \(row.profileUpdatedAt), \(row.updatedAt))
                ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, granted_roles = excluded.granted_roles,
                    status = excluded.status, profile_version = excluded.profile_version,
                    profile_updated_at = excluded.profile_updated_at, updated_at = excluded.updated_at
                """, logger: connection.logger)
        }
        profiles?.apply(effect, to: decoded.userId)
    }

    static func row(_ row: PostgresRow) throws -> GuideAccount {
        let (id, role, granted, status, version, profileUpdatedAt, updatedAt) = try row.decode(
            (UUID, String?, String, String, Int32, Date?, Date).self)
        return GuideAccount(userId: id, role: role.flatMap(UserRole.init(rawValue:)), grantedRoles: GuideAccount.grantedRoles(granted),
                            status: GuideAccountStatus(rawValue: status) ?? .active, profileVersion: Int(version),
                            profileUpdatedAt: profileUpdatedAt, updatedAt: updatedAt)
    }
}
