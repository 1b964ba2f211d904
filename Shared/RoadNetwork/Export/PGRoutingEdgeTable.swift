/// A ``RoadGraph`` as pgRouting's edge table, so `pgr_dijkstra` and the other pgRouting functions run on exactly our
/// network (the oracle test does): one row per edge with `id` (edge index + 1), `source` and `target` (the OSM node ids
/// of its end vertices), `cost` and `reverse_cost` (our weights in equivalent metres, −1 in a direction a bicycle may
/// not use), `x1, y1, x2, y2` (longitude, latitude of its ends), `osm_way_id`, `osm_node_ids` (the OSM nodes along it,
/// a PostgreSQL array literal) and `geom_wkt` (its shape as a WKT LineString, SRID 4326).
public struct PGRoutingEdgeTable: Sendable {
    /// The graph exported.
    public let graph: RoadGraph

    /// The columns, in order.
    public static let columns = ["id", "source", "target", "cost", "reverse_cost", "x1", "y1", "x2", "y2",
                                 "osm_way_id", "osm_node_ids", "geom_wkt"]

    /// The table of `graph`.
    public init(graph: RoadGraph) {
        self.graph = graph
    }

    /// The table as CSV (RFC 4180) with a header line: `COPY table FROM 'file' WITH (FORMAT csv, HEADER)` loads it.
    public func csv() -> String {
        var text = Self.columns.joined(separator: ",") + "\n"
        for edge in 0..<graph.edgeCount {
            text += values(of: edge).map { $0.contains(",") ? "\"\($0)\"" : $0 }.joined(separator: ",")
            text += "\n"
        }
        return text
    }

    /// The table as SQL statements, one per element: `DROP TABLE IF EXISTS`, `CREATE TABLE` (plain PostgreSQL types:
    /// the table loads without PostGIS), then `INSERT`s of up to `batchSize` rows each.
    public func sqlStatements(table: String, batchSize: Int = 500) throws(PGRoutingExportError) -> [String] {
        guard Self.isPlainIdentifier(table) else { throw .invalidTableName(table) }
        var statements = [
            "DROP TABLE IF EXISTS \(table);",
            """
            CREATE TABLE \(table) (id bigint PRIMARY KEY, source bigint NOT NULL, target bigint NOT NULL, \
            cost double precision NOT NULL, reverse_cost double precision NOT NULL, x1 double precision, \
            y1 double precision, x2 double precision, y2 double precision, osm_way_id bigint, osm_node_ids bigint[], \
            geom_wkt text);
            """,
        ]
        let batch = max(1, batchSize)
        for first in stride(from: 0, to: graph.edgeCount, by: batch) {
            let rows = (first..<min(first + batch, graph.edgeCount)).map { edge in
                let fields = values(of: edge)
                let quoted = fields.indices.map { $0 >= 10 ? "'\(fields[$0])'" : fields[$0] }
                return "(" + quoted.joined(separator: ", ") + ")"
            }
            statements.append("INSERT INTO \(table) VALUES " + rows.joined(separator: ", ") + ";")
        }
        return statements
    }

    /// The row of `edge` as text, in ``columns`` order (no quoting: no value holds a quote; ids, numbers, WKT).
    func values(of edge: Int) -> [String] {
        let source = Int(graph.edgeSources[edge]), target = Int(graph.edgeTargets[edge])
        let shape = graph.shape(of: edge)
        let wkt = "LINESTRING(" + shape.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") + ")"
        return [
            "\(edge + 1)", "\(graph.vertexNodeIDs[source])", "\(graph.vertexNodeIDs[target])",
            Self.cost(graph.edgeForwardWeights[edge]), Self.cost(graph.edgeBackwardWeights[edge]),
            "\(graph.vertexLongitudes[source])", "\(graph.vertexLatitudes[source])",
            "\(graph.vertexLongitudes[target])", "\(graph.vertexLatitudes[target])",
            "\(graph.ways[Int(graph.edgeWays[edge])].osmID)",
            "{" + graph.shapeNodes(of: edge).map(String.init).joined(separator: ",") + "}", wkt,
        ]
    }

    /// pgRouting's cost: the weight, or −1 where the direction is not allowed (pgRouting drops negative costs).
    static func cost(_ weight: Double) -> String {
        weight.isFinite ? "\(weight)" : "-1"
    }

    /// A lower-case SQL identifier that needs no quoting (letters, digits, underscores; not starting with a digit).
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), name.utf8.count <= 63 else {
            return false
        }
        return name.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_")
            || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }
}

/// Why an export cannot be written.
public enum PGRoutingExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table name is not a plain lower-case SQL identifier.
    case invalidTableName(String)

    public var description: String {
        switch self {
        case .invalidTableName(let name):
            "invalid table name '\(name)': use lower-case letters, digits and underscores, not starting with a digit"
        }
    }
}
