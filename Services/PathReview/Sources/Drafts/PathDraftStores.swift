import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO
import ServiceKit

/// Reads of the `path_drafts` read model (``SQLitePathDraftsProjection``, ``PostgresPathDraftsProjection``).
public protocol PathDraftReadStore: Sendable {
    /// An author's drafts, most recently changed first (ties by draft id, descending), after `cursor`.
    func page(author: UUID, after cursor: PageCursor?, limit: Int) async throws -> [PathDraftRow]
}

/// path-review's stores on the configured backend, opened once by the composition root: the one place the service
/// chooses between SQLite and PostgreSQL. (No own tables yet: every table is a read model.)
public struct PathReviewStores: Sendable {
    /// The `path_drafts` read model's reads.
    public let drafts: any PathDraftReadStore
    /// The `review_queue` read model's reads.
    public let queue: any ReviewQueueStore

    /// Opens every store.
    public static func open(_ storage: ServiceStorage) -> PathReviewStores {
        storage.backend(sqlite: { PathReviewStores(drafts: SQLitePathDraftReadStore(database: $0), queue: SQLiteReviewQueueStore(database: $0)) },
                        postgres: { PathReviewStores(drafts: PostgresPathDraftReadStore(database: $0), queue: PostgresReviewQueueStore(database: $0)) })
    }
}

/// ``PathDraftReadStore`` in the embedded SQLite database.
public struct SQLitePathDraftReadStore: PathDraftReadStore {
    let database: SQLiteServiceDatabase

    /// The store over `database` (its table exists once the projection ran).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func page(author: UUID, after cursor: PageCursor?, limit: Int) async throws -> [PathDraftRow] {
        var sql = "SELECT row FROM path_drafts WHERE author_id = ?"
        var arguments: StatementArguments = [author.uuidString.lowercased()]
        if let cursor {
            sql += " AND (updated_at_us < ? OR (updated_at_us = ? AND draft_id < ?))"
            arguments += [cursor.key, cursor.key, cursor.id.uuidString.lowercased()]
        }
        sql += " ORDER BY updated_at_us DESC, draft_id DESC LIMIT \(limit)"
        let (statement, binds) = (sql, arguments)
        return try await database.read { db in try String.fetchAll(db, sql: statement, arguments: binds).map(PathDraftRowFold.decode) }
    }
}

/// ``PathDraftReadStore`` in the service's PostgreSQL database.
public struct PostgresPathDraftReadStore: PathDraftReadStore {
    let database: PostgresServiceDatabase

    /// The store over `database` (its table exists once the projection ran).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func page(author: UUID, after cursor: PageCursor?, limit: Int) async throws -> [PathDraftRow] {
        let query: PostgresQuery = if let cursor {
            """
            SELECT row FROM path_drafts WHERE author_id = \(author)
                AND (updated_at_us < \(cursor.key) OR (updated_at_us = \(cursor.key) AND draft_id < \(cursor.id)))
            ORDER BY updated_at_us DESC, draft_id DESC LIMIT \(limit)
            """
        } else {
            "SELECT row FROM path_drafts WHERE author_id = \(author) ORDER BY updated_at_us DESC, draft_id DESC LIMIT \(limit)"
        }
        var rows: [PathDraftRow] = []
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            rows.append(try PathDraftRowFold.decode(text))
        }
        return rows
    }
}
