/// What every projection (SQLite or PostgreSQL) says about its tables: its name and the version of their shape.
public protocol ProjectionSchema: Sendable {
    /// Unique name; also the key of its checkpoint.
    var name: String { get }
    /// The version of the tables' shape (default 1). Raising it makes the next start drop the tables and replay the log
    /// into the new shape: the checkpoint is kept per version (``checkpointName``).
    var schemaVersion: Int { get }
    /// The event types `apply` acts on, when it ignores every other (default `nil`: every event is read). The runner
    /// then reads only these from the log (``EventStore/readAll(after:limit:types:)``): the others are neither
    /// copied nor decoded, and a log busy with other events (a position update per fix) costs this projection no
    /// write per batch. The set must hold every type `apply` changes anything for — a type left out is never applied,
    /// live or in a rebuild.
    var eventTypes: Set<String>? { get }
}

extension ProjectionSchema {
    public var schemaVersion: Int { 1 }
    public var eventTypes: Set<String>? { nil }
    /// The checkpoint key: the name, with `@v<n>` from schema version 2 on.
    public var checkpointName: String { schemaVersion == 1 ? name : "\(name)@v\(schemaVersion)" }
}
