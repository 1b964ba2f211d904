import GRDB
import PostgresNIO

/// Applies other services' events to a read model in a SQLite service database. Runs inside the consumer's
/// transaction, which also stores the dedupe record; throw to stop the consumer (never skip), ignore unknown types.
public protocol SQLiteEventHandler: Sendable {
    /// Unique consumer name within the service (its dedupe records and positions are keyed by it).
    var name: String { get }
    /// Creates the handler's tables if needed.
    func createTables(_ db: Database) throws
    /// Applies one event.
    func handle(_ event: PublishedEvent, _ db: Database) throws
    /// The event types `handle` applies (it ignores every other): on the embedded transport the producer then serves
    /// only these (``EmbeddedFeed/eventTypes``). `nil` (the default): every type.
    var eventTypes: Set<String>? { get }
}

extension SQLiteEventHandler {
    public var eventTypes: Set<String>? { nil }
}

/// Applies other services' events to a read model in a PostgreSQL service database (see ``SQLiteEventHandler``).
public protocol PostgresEventHandler: Sendable {
    /// Unique consumer name within the service.
    var name: String { get }
    /// Creates the handler's tables if needed.
    func createTables(_ connection: PostgresConnection) async throws
    /// Applies one event.
    func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws
    /// The event types `handle` applies (see ``SQLiteEventHandler/eventTypes``). `nil` (the default): every type.
    var eventTypes: Set<String>? { get }
}

extension PostgresEventHandler {
    public var eventTypes: Set<String>? { nil }
}

/// Where a consumer's read model, dedupe records and source positions live; one transaction per batch.
public protocol ConsumerTarget: Sendable {
    /// The consumer's name.
    var name: String { get }
    /// Creates tables; returns the stored source positions (by producing service).
    func prepare() async throws -> [String: Int64]
    /// In one transaction: skips events already applied (per source stream, by version), applies the rest, stores
    /// dedupe records and source positions. Returns how many were applied.
    func apply(_ events: [PublishedEvent]) async throws -> Int
}

/// A consumer could not apply an event: it stops and reports this.
public struct ConsumerFailure: Error, Sendable, CustomStringConvertible {
    /// The consumer.
    public var consumer: String
    /// The event that failed.
    public var event: PublishedEvent
    /// What went wrong.
    public var reason: String

    public var description: String {
        "consumer '\(consumer)' cannot apply \(event.source) event \(event.eventType) (stream \(event.streamID) v\(event.streamVersion)): \(reason)"
    }
}
