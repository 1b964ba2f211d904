import EventSourcing
import Foundation
import GRDB

/// ``GuideTourReadStore`` in the embedded SQLite database.
public struct SQLiteGuideTourReadStore: GuideTourReadStore {
    let database: SQLiteServiceDatabase

    /// The reads of `database`'s `guide_tours` read model.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func rows(ofGuide guide: UUID) async throws -> [GuideTourRow] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM guide_tours WHERE guide_id = ? ORDER BY last_changed_at_us DESC",
                             arguments: [guide.uuidString.lowercased()]).map(SQLiteGuideToursProjection.row)
        }
    }

    public func rows(in status: TourStatus, changedBefore cutoff: Date?) async throws -> [GuideTourRow] {
        try await database.read { db in
            var sql = "SELECT * FROM guide_tours WHERE status = ?"
            var arguments: StatementArguments = [status.rawValue]
            if let cutoff {
                sql += " AND last_changed_at_us < ?"
                arguments += [cutoff.microsecondsSince1970]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY last_changed_at_us DESC", arguments: arguments).map(SQLiteGuideToursProjection.row)
        }
    }
}
