import Foundation

/// Which erased accounts still have content to remove in tour-management: accounts the `waypoint.auth` consumer marked
/// erased in `guide_accounts`, minus those recorded in `erasures_applied` (``ErasureWorker``).
public protocol ErasureStore: Sendable {
    /// Up to 100 accounts marked erased whose content was not removed yet (none before the consumer created its table).
    func pendingUsers() async throws -> [UUID]
    /// Records that `user`'s content was removed (idempotent).
    func markApplied(_ user: UUID) async throws
}
