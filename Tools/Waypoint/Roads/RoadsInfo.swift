import ArgumentParser
import Foundation
import RoadNetwork

/// `waypoint roads info EXTRACT…`: the network's counts, bounding box, components and profile version as JSON.
struct RoadsInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Print the bike network's counts, bounding box, components and profile version as JSON.")

    @OptionGroup var network: RoadExtractOptions

    /// What `info` prints.
    struct Facts: Codable, Equatable {
        /// South, west, north, east in degrees.
        struct Box: Codable, Equatable {
            var south: Double, west: Double, north: Double, east: Double
        }

        /// Weakly connected components: how many, and the vertices of the largest.
        struct Components: Codable, Equatable {
            var count: Int
            var largestNodes: Int
        }

        /// Strongly connected components (``RoadComponents``): how many, the vertices in main ones, and the vertices
        /// from which no route leads into a main one or to which none leads from one (where snapping moves a route's
        /// origin or destination away from, when a leg would not connect).
        struct StrongComponents: Codable, Equatable {
            var count: Int
            var mainNodes: Int
            var nodesNotReachingMain: Int
            var nodesNotReachedFromMain: Int
        }

        var attribution = openStreetMapAttribution
        var extracts: [String]
        var extractsSHA256: String
        var profileVersion: Int
        var cacheFormatVersion: Int
        /// Graph vertices (where ways meet or end).
        var nodes: Int
        var edges: Int
        /// OSM nodes along the edges' shapes, ends included.
        var shapeNodes: Int
        var usableWays: Int
        var cycleNetworkWays: Int
        var missingNodeReferences: Int
        var lengthKm: Double
        var boundingBox: Box?
        var components: Components
        /// Strongly connected components (one-way streets count one way): what routing snaps by.
        var strongComponents: StrongComponents
        var source: String
    }

    func run() throws {
        try writeRoadsOutput(try render(), to: nil)
    }

    /// The facts as one JSON object.
    func render() throws -> String {
        String(decoding: try JSONEncoder.roads.encode(try facts()), as: UTF8.self) + "\n"
    }

    /// The network's facts.
    func facts() throws -> Facts {
        let loaded = try network.load()
        let graph = loaded.graph
        let components = graph.weakComponents(), strong = RoadComponents(graph: graph)
        let vertices = 0..<graph.vertexCount
        var box: Facts.Box?
        if let south = graph.shapeLatitudes.min(), let north = graph.shapeLatitudes.max(),
           let west = graph.shapeLongitudes.min(), let east = graph.shapeLongitudes.max() {
            box = Facts.Box(south: south, west: west, north: north, east: east)
        }
        let source = switch loaded.source {
        case .cache: "cache"
        case .imported(nil): "imported"
        case .imported(let miss?): "imported (\(miss))"
        }
        return Facts(extracts: network.extracts, extractsSHA256: loaded.extractsSHA256, profileVersion: graph.profile.version,
                     cacheFormatVersion: Int(RoadGraphCacheFile.formatVersion), nodes: graph.vertexCount, edges: graph.edgeCount,
                     shapeNodes: graph.shapeNodeIDs.count, usableWays: loaded.report.usableWays,
                     cycleNetworkWays: loaded.report.cycleNetworkWays, missingNodeReferences: loaded.report.missingNodeReferences,
                     lengthKm: (graph.edgeLengths.reduce(0, +) / 10).rounded() / 100, boundingBox: box,
                     components: Facts.Components(count: components.sizes.count, largestNodes: components.sizes.max() ?? 0),
                     strongComponents: Facts.StrongComponents(
                         count: strong.count, mainNodes: (0..<strong.count).filter(strong.isMain).reduce(0) { $0 + strong.sizes[$1] },
                         nodesNotReachingMain: vertices.filter { !strong.reachesMain(vertex: $0) }.count,
                         nodesNotReachedFromMain: vertices.filter { !strong.isReachedFromMain(vertex: $0) }.count),
                     source: source)
    }
}
