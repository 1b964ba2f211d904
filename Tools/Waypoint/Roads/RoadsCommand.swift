import ArgumentParser
import Foundation
import RoadNetwork

/// `waypoint roads …`: operator tools for OpenStreetMap extracts — export the graph, print its facts, try a route.
struct RoadsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roads",
        abstract: "Inspect the bike road network built from OpenStreetMap extracts (map data © OpenStreetMap contributors, ODbL).",
        subcommands: [RoadsExport.self, RoadsInfo.self, RoadsRoute.self])
}

/// The extracts a `roads` command builds its network from, and an optional cache directory.
struct RoadExtractOptions: ParsableArguments {
    @Argument(help: "OpenStreetMap extracts (.osm, .osm.gz, .osm.pbf); several load into one network.")
    var extracts: [String]

    @Option(name: .customLong("cache-dir"), help: "Keep the compiled graph cache in this directory (default: no cache).")
    var cacheDirectory: String?

    func validate() throws {
        guard !extracts.isEmpty else { throw ValidationError("name at least one extract") }
    }

    /// The network of the extracts, or a ``RoadsCommandError`` naming the file and what is wrong with it.
    func load() throws -> LoadedRoadNetwork {
        do {
            return try RoadNetworkLoader.load(extracts: extracts, cacheDirectory: cacheDirectory)
        } catch let error as OSMReadError {
            throw RoadsCommandError(error.description)
        }
    }
}

/// A `roads` command that failed on its input: printed as `Error: …`, exit status 1.
struct RoadsCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// OpenStreetMap's attribution, printed with every output that carries map data.
let openStreetMapAttribution = MapDataAttribution.openStreetMap

extension JSONEncoder {
    /// The encoder of the `roads` commands' JSON: sorted keys, so the output is stable.
    static var roads: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Writes a command's output to `path`, or to standard output without one.
func writeRoadsOutput(_ text: String, to path: String?) throws {
    guard let path else { return FileHandle.standardOutput.write(Data(text.utf8)) }
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw RoadsCommandError("cannot write \(path): \(error.localizedDescription)")
    }
}
