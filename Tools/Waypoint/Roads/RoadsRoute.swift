import ArgumentParser
import Foundation
import Geo
import RoadNetwork

/// `waypoint roads route --from LAT,LNG --to LAT,LNG [--via LAT,LNG …] [--alternatives N] EXTRACT…`: the best route as
/// JSON. For now each point snaps to the nearest end vertex of its nearest usable edge and legs are ``ShortestPaths``
/// between those vertices; at the merge with the router of issue 18 (part-way starts, alternatives) this file's
/// ``route(on:)`` switches to it — the command line and the output shape stay.
struct RoadsRoute: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "Print the best bike route between coordinates as JSON (distance, duration, weight, OSM nodes).")

    @Option(help: "Start, as LAT,LNG in degrees.") var from: RouteCoordinate
    @Option(help: "Destination, as LAT,LNG in degrees.") var to: RouteCoordinate
    @Option(help: "A point to pass through, LAT,LNG; repeat for several, in order (at most 25).") var via: [RouteCoordinate] = []
    @Option(help: "Alternatives wanted besides the best route, 0–3 (not yet computed: the router comes with issue 18).")
    var alternatives = 0
    @Option(help: "Snap radius in metres: a point farther than this from every usable way has no route.") var radius = 500.0
    @OptionGroup var network: RoadExtractOptions

    /// At most this many via points.
    static let maximumVias = 25

    func validate() throws {
        guard via.count <= Self.maximumVias else { throw ValidationError("at most \(Self.maximumVias) --via points") }
        guard (0...3).contains(alternatives) else { throw ValidationError("--alternatives must be 0 to 3") }
        guard radius.isFinite, radius > 0, radius <= 10_000 else { throw ValidationError("--radius must be in (0, 10000] metres") }
    }

    /// What `route` prints: the routes found (none when the points do not connect), best first.
    struct Answer: Encodable {
        /// One route: its totals, the OSM node sequence of each edge in travel order, and its geometry.
        struct Route: Encodable {
            var distance: Double
            var duration: Double
            var weight: Double
            var edges: [RouteEdge]
            var geometry: LineString?
        }

        /// One edge of a route: its OSM way and the OSM nodes along it, in travel order.
        struct RouteEdge: Encodable {
            var osmWayId: Int64
            var osmNodeIds: [Int64]
        }

        var attribution = openStreetMapAttribution
        var routes: [Route]
        /// Why `routes` is empty, when it is.
        var noRoute: String?
    }

    func run() throws {
        try writeRoadsOutput(try render(), to: nil)
    }

    /// The answer as JSON.
    func render() throws -> String {
        String(decoding: try JSONEncoder.roads.encode(try route(on: network.load().graph)), as: UTF8.self) + "\n"
    }

    /// The best route through the points on `graph`.
    func route(on graph: RoadGraph) throws -> Answer {
        let snaps = SnapIndex(graph: graph)
        let points = [(name: "--from", point: from)] + via.map { (name: "--via", point: $0) } + [(name: "--to", point: to)]
        let vertices = try points.map { named in
            guard let snap = snaps.nearest(latitude: named.point.latitude, longitude: named.point.longitude, radius: radius) else {
                throw RoadsCommandError("no street within \(radius) m of \(named.name) \(named.point)")
            }
            let source = Int(graph.edgeSources[snap.edge]), target = Int(graph.edgeTargets[snap.edge])
            return snap.offset <= graph.edgeLengths[snap.edge] / 2 ? source : target
        }
        let search = ShortestPaths(graph: graph)
        var arcs: [RoadGraph.Arc] = [], weight = 0.0
        for (start, end) in zip(vertices, vertices.dropFirst()) {
            guard let leg = search.path(from: start, to: end) else {
                return Answer(routes: [], noRoute: "the points lie on parts of the network that do not connect")
            }
            arcs += leg.arcs
            weight += leg.weight
        }
        return Answer(routes: [Self.describe(arcs, weight: weight, on: graph)], noRoute: nil)
    }

    /// The route along `arcs` (in travel order): totals, per-edge OSM nodes and the joined geometry.
    static func describe(_ arcs: [RoadGraph.Arc], weight: Double, on graph: RoadGraph) -> Answer.Route {
        var distance = 0.0, duration = 0.0
        var edges: [Answer.RouteEdge] = [], positions: [Position] = []
        for arc in arcs {
            let way = graph.ways[Int(graph.edgeWays[arc.edge])]
            distance += graph.edgeLengths[arc.edge]
            duration += graph.edgeLengths[arc.edge] * way.use.secondsPerMetre
            let nodes = Array(graph.shapeNodes(of: arc.edge)), shape = graph.shape(of: arc.edge)
            edges.append(Answer.RouteEdge(osmWayId: way.osmID, osmNodeIds: arc.reversed ? nodes.reversed() : nodes))
            let travelled = (arc.reversed ? shape.reversed() : shape).dropFirst(positions.isEmpty ? 0 : 1)
            positions += travelled.compactMap { try? Position(longitude: $0.longitude, latitude: $0.latitude) }
        }
        return Answer.Route(distance: distance, duration: duration, weight: weight, edges: edges, geometry: try? LineString(positions))
    }
}

/// A `LAT,LNG` command-line value in degrees: finite, latitude within ±90, longitude within ±180.
struct RouteCoordinate: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var latitude: Double
    var longitude: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces)),
              (try? Coordinate(latitude: latitude, longitude: longitude)) != nil else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    var description: String { "\(latitude),\(longitude)" }
}
