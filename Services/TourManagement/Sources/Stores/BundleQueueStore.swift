import Foundation

/// The reads and removals of `bundle_queue` (the ``SQLiteBundleQueueProjection`` read model) that ``BundlePublisher``
/// works through.
public protocol BundleQueueStore: Sendable {
    /// Up to 100 queued tours with their latest published revision, by tour id.
    func queued() async throws -> [(tourId: UUID, revision: Int)]
    /// Removes `tour`'s row unless a newer revision was queued meanwhile.
    func dequeue(_ tour: UUID, revision: Int) async throws
}
