import Foundation

/// The reads of the `guide_tours` read model (``SQLiteGuideToursProjection`` / ``PostgresGuideToursProjection``'s
/// table, the live generation) behind ``GuideTours``.
public protocol GuideTourReadStore: Sendable {
    /// Every row of `guide`, most recently changed first.
    func rows(ofGuide guide: UUID) async throws -> [GuideTourRow]
    /// The rows in `status` (last changed before `cutoff`, when given), most recently changed first.
    func rows(in status: TourStatus, changedBefore cutoff: Date?) async throws -> [GuideTourRow]
}
