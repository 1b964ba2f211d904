import Foundation

/// The reads of `guide_accounts`, the table the `waypoint.auth` consumer (``SQLiteGuideAccountsHandler``) keeps.
public protocol GuideAccountStore: Sendable {
    /// The known accounts among `ids` (distinct, not empty); none before the consumer created its table.
    func accounts(_ ids: [UUID]) async throws -> [UUID: GuideAccount]
    /// Every row, by user id; none before the consumer created its table.
    func all() async throws -> [GuideAccount]
}
