import ArgumentParser
import Foundation
import Geo
import RoadNetwork

/// `waypoint roads export --format pgrouting|pgrouting-sql|geojson EXTRACT…`: the network as pgRouting's edge table
/// (CSV or SQL) or as GeoJSON for a GIS.
struct RoadsExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the bike network as pgRouting's edge table (CSV or SQL) or as GeoJSON.",
        discussion: """
            pgrouting: CSV with a header (id, source, target, cost, reverse_cost, x1, y1, x2, y2, osm_way_id, osm_node_ids,
            geom_wkt); cost is our weight in equivalent metres, -1 where a bicycle may not go. pgrouting-sql: the same
            table as DROP/CREATE/INSERT statements for psql. geojson: a FeatureCollection of the edges' LineStrings.
            """)

    /// The export formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case pgrouting
        case pgroutingSQL = "pgrouting-sql"
        case geojson
    }

    @Option(help: "pgrouting (CSV), pgrouting-sql or geojson.")
    var format: Format

    @Option(help: "Table name for pgrouting-sql.")
    var table = "bike_edges"

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var network: RoadExtractOptions

    func run() throws {
        try writeRoadsOutput(try render(), to: output)
    }

    /// The export's text.
    func render() throws -> String {
        let graph = try network.load().graph
        switch format {
        case .pgrouting:
            return PGRoutingEdgeTable(graph: graph).csv()
        case .pgroutingSQL:
            let statements = try PGRoutingEdgeTable(graph: graph).sqlStatements(table: table)
            return "-- \(openStreetMapAttribution)\n" + statements.joined(separator: "\n") + "\n"
        case .geojson:
            let data = try JSONEncoder.roads.encode(graph.geoJSONFeatures())
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }
}
