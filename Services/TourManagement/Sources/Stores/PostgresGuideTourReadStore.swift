import EventSourcing
import Foundation
import PostgresNIO

/// ``GuideTourReadStore`` in the service's PostgreSQL database.
public struct PostgresGuideTourReadStore: GuideTourReadStore {
    let database: PostgresServiceDatabase

    /// The reads of `database`'s `guide_tours` read model.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func rows(ofGuide guide: UUID) async throws -> [GuideTourRow] {
        try await rows("""
            SELECT \(unescaped: PostgresGuideToursProjection.columns) FROM guide_tours WHERE guide_id = \(guide) ORDER BY last_changed_at DESC
            """)
    }

    public func rows(in status: TourStatus, changedBefore cutoff: Date?) async throws -> [GuideTourRow] {
        // Without a cutoff it is NULL and the condition holds for every row.
        try await rows("""
            SELECT \(unescaped: PostgresGuideToursProjection.columns) FROM guide_tours WHERE status = \(status.rawValue)
                AND (\(cutoff)::timestamptz IS NULL OR last_changed_at < \(cutoff)) ORDER BY last_changed_at DESC
            """)
    }

    private func rows(_ query: PostgresQuery) async throws -> [GuideTourRow] {
        var result: [GuideTourRow] = []
        for try await row in try await database.client.query(query, logger: database.logger) {
            result.append(try PostgresGuideToursProjection.row(row))
        }
        return result
    }
}
