/// Where a projection's rows live (a SQLite or PostgreSQL database) and how batches, checkpoints and rebuilds are
/// written there. The runner is the same for every target.
public protocol ProjectionTarget: Sendable {
    /// The projection's unique name within its database.
    var name: String { get }

    /// The event types the projection acts on (`nil`: every event); see ``ProjectionSchema/eventTypes``.
    var eventTypes: Set<String>? { get }

    /// Creates the checkpoint table and, on first start, the live tables; returns the stored checkpoint.
    func prepare() async throws -> Int64

    /// Applies events after the stored checkpoint and advances the checkpoint, in one transaction.
    ///
    /// Events at or below the stored checkpoint are skipped, so a redelivered batch changes nothing.
    /// - Returns: the new checkpoint.
    func apply(_ events: [EventEnvelope]) async throws -> Int64

    /// Moves the checkpoint on to `position` (never back) without applying anything: the events up to there were of
    /// types the projection passes over.
    func advance(to position: Int64) async throws

    /// Drops any half-built rebuild tables and creates fresh ones for the next generation.
    func beginRebuild() async throws -> ProjectionTables

    /// Applies replayed events to the rebuild tables (no checkpoint).
    func applyToRebuild(_ events: [EventEnvelope], tables: ProjectionTables) async throws

    /// In one transaction: applies the last replayed events, replaces the live tables with the rebuilt ones and sets
    /// the checkpoint to `position` and the generation to the rebuilt one.
    func finishRebuild(_ events: [EventEnvelope], tables: ProjectionTables, position: Int64) async throws
}
