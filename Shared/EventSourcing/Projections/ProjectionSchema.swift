/// What every projection (SQLite or PostgreSQL) says about its tables: its name and the version of their shape.
public protocol ProjectionSchema: Sendable {
    /// Unique name; also the key of its checkpoint.
    var name: String { get }
    /// The version of the tables' shape (default 1). Raising it makes the next start drop the tables and replay the log
    /// into the new shape: the checkpoint is kept per version (``checkpointName``).
    var schemaVersion: Int { get }
}

extension ProjectionSchema {
    public var schemaVersion: Int { 1 }
    /// The checkpoint key: the name, with `@v<n>` from schema version 2 on.
    public var checkpointName: String { schemaVersion == 1 ? name : "\(name)@v\(schemaVersion)" }
}
