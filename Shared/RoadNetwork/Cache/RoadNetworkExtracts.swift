import Foundation
import Logging
import ReferenceData

/// Which OpenStreetMap extracts a service builds its road network from, as every bike service reads it from its
/// configuration (`WAYPOINT_<SERVICE>_EXTRACTS`): a comma-separated list of paths, or the embedded default — the Krems
/// extract of the reference data (DESIGN: "the embedded default is `../shared/data/krems.osm.gz`").
public enum RoadNetworkExtracts {
    /// The file name of the default extract in the reference data directory.
    public static let defaultFileName = "krems.osm.gz"

    /// The Krems extract of the reference data, located as the rest of the repository locates reference data
    /// (`WAYPOINT_REFERENCE_DATA_DIR`, else `../shared/data`); throws when the directory cannot be found.
    public static func defaults(environment: [String: String]) throws -> [String] {
        [try ReferenceDataDirectory.file(defaultFileName, environment: environment).path]
    }

    /// The paths of a comma-separated list, trimmed, empty entries left out.
    public static func parse(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The configured list (`raw`, when the key is set) or the default.
    public static func configured(_ raw: String?, environment: [String: String]) throws -> [String] {
        try raw.map(parse) ?? defaults(environment: environment)
    }

    /// A service's network from `extracts`, through the compiled cache in `cacheDirectory` when it is current; logs the
    /// summary once, and a cache that could not be written as a warning (the network is still served).
    public static func load(_ extracts: [String], cacheDirectory: String, logger: Logger) throws -> LoadedRoadNetwork {
        let loaded = try RoadNetworkLoader.load(extracts: extracts, cacheDirectory: cacheDirectory)
        logger.info("road network loaded", metadata: loaded.summary.mapValues { .string($0) })
        if let error = loaded.cacheWriteError { logger.warning("road network cache not written", metadata: ["error": "\(error)"]) }
        return loaded
    }
}

extension LoadedRoadNetwork {
    /// What a service logs once it has its network: vertex and edge counts and where the graph came from.
    public var summary: [String: String] {
        ["vertices": "\(graph.vertexCount)", "edges": "\(graph.edgeCount)", "source": "\(source)"]
    }
}
