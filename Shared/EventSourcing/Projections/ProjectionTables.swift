/// Physical names of a projection's tables and indexes for one generation.
///
/// Live tables carry their logical names, so queries elsewhere in the service use plain names. A rebuild writes
/// into `<table>__rebuild` tables and renames them on swap; index names carry the generation because SQLite and
/// PostgreSQL keep an index's name when its table is renamed.
public struct ProjectionTables: Sendable, Hashable {
    /// The projection's generation: 1 at first creation, +1 per rebuild.
    public let generation: Int
    /// Whether these are the fresh tables of a rebuild in progress.
    public let isRebuild: Bool

    /// Names for generation `generation`; `isRebuild` selects the fresh side of a rebuild.
    public init(generation: Int, isRebuild: Bool) {
        self.generation = generation
        self.isRebuild = isRebuild
    }

    /// The physical name of a logical table, quoted for SQL.
    public func callAsFunction(_ table: String) -> String {
        "\"\(physical(table))\""
    }

    /// The physical name of a logical table, unquoted.
    public func physical(_ table: String) -> String {
        isRebuild ? "\(table)__rebuild" : table
    }

    /// A unique, quoted index name for this generation.
    public func index(_ name: String) -> String {
        "\"\(name)_g\(generation)\""
    }
}
