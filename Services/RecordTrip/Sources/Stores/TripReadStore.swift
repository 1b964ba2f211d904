import ServiceKit
import Foundation

/// Reads of the `trips` read model (``SQLiteTripsProjection``, ``PostgresTripsProjection``).
public protocol TripReadStore: Sendable {
    /// A rider's trips, newest first (ties by trip id, descending), after `cursor`.
    func page(rider: UUID, after cursor: PageCursor?, limit: Int) async throws -> [TripRow]
    /// Every trip of a rider (for totals, summaries and erasure), newest first.
    func all(rider: UUID) async throws -> [TripRow]
    /// Finished trips without weather, up to `limit`.
    func weatherPending(limit: Int) async throws -> [UUID]
    /// Trips whose finish was recorded and whose analysis was not, up to `limit`.
    func analysisPending(limit: Int) async throws -> [UUID]
}
