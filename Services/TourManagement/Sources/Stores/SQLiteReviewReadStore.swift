import ServiceKit
import EventSourcing
import Foundation
import GRDB

/// ``ReviewReadStore`` in the embedded SQLite database.
public struct SQLiteReviewReadStore: ReviewReadStore {
    let database: SQLiteServiceDatabase

    /// The reads of `database`'s `reviews` read model.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func rows(_ selection: ReviewSelection, after cursor: PageCursor?, limit: Int) async throws -> [ReviewRow] {
        let condition = switch selection {
        case .visible: "tour_id = ? AND visible = 1"
        case .awaitingModeration: "awaits_moderation = 1"
        case .review: "review_id = ?"
        case .author: "user_id = ?"
        }
        var sql = "SELECT row FROM reviews WHERE \(condition)"
        var arguments: StatementArguments = selection.value.map { [$0.uuidString.lowercased()] } ?? []
        if let key = selection.cursorKey, let cursor {
            sql += " AND (\(key.column) \(key.descending ? "<" : ">") ? OR (\(key.column) = ? AND review_id > ?))"
            arguments += [cursor.key, cursor.key, cursor.id.uuidString.lowercased()]
        }
        sql += " ORDER BY \(selection.order) LIMIT \(limit)"
        let (statement, binds) = (sql, arguments)
        return try await database.read { db in try String.fetchAll(db, sql: statement, arguments: binds).map(ReviewFold.decode) }
    }

    public func ratings(tour: UUID) async throws -> ReviewRatings {
        let columns = ReviewFold.histogramColumns.joined(separator: ", ")
        return try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(columns) FROM review_ratings WHERE tour_id = ?",
                                             arguments: [tour.uuidString.lowercased()]) else { return ReviewRatings() }
            return ReviewRatings(histogram: (0..<5).map { row[$0] })
        }
    }
}
