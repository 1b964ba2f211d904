import PostgresNIO

/// A read model kept in a service's PostgreSQL (PostGIS) database.
///
/// Write it against ``ProjectionTables`` names so the runner can rebuild it into fresh tables. `apply` runs inside the
/// batch's transaction on `connection`; throw to stop the projection, ignore event types you do not know.
public protocol PostgresProjection: ProjectionSchema {
    /// Unique name; also the key of its checkpoint.
    var name: String { get }
    /// The logical names of the tables it owns.
    var tables: [String] { get }
    /// Creates the tables and indexes for `tables`.
    func createTables(_ connection: PostgresConnection, _ tables: ProjectionTables) async throws
    /// Applies one event.
    func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ tables: ProjectionTables) async throws
}
