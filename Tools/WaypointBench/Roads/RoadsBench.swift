import ArgumentParser
import Foundation
import Logging
import ReferenceData

/// `waypoint-bench roads`: the road network on the three real extracts and on synthetic grid cities of 10k, 100k and
/// 1M nodes — import, compiled cache, memory, routes with alternatives, snapping, street search.
struct RoadsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roads",
        abstract: "Measures the road network: import, cache, memory, routes and alternatives, snapping, street search.",
        discussion: """
            Real cities: krems.osm.gz, monaco.osm.gz, helsinki.osm.pbf from --data-dir. Grid cities: square grids of \
            streets 100 m apart with 10k, 100k and 1M nodes, generated as OSM XML in a temporary directory and imported \
            through the normal reader. Deterministic: the same --seed draws the same pairs, points, prefixes and grids. \
            See docs/benchmarks.md, "roads".
            """
    )

    @Flag(help: "Measure the real cities only.")
    var citiesOnly = false

    @Flag(help: "Measure the grid cities only.")
    var gridsOnly = false

    @Option(help: "Route pairs per real city (1–5 km apart) and per 10k and 100k grid; the 1M grid uses a tenth (at least 10).")
    var pairs = 1_000

    @Option(help: "Points snapped per real city.")
    var snaps = 10_000

    @Option(help: "Street-name prefixes searched per real city.")
    var prefixes = 2_000

    @Option(help: "Directory of the extracts (default: ../shared/data, found like the other reference data).")
    var dataDir: String?

    @Option(help: "Seed of every random choice.")
    var seed: UInt64 = 18

    /// The real cities: JSON key and extract file name.
    static let cities = [("krems", "krems.osm.gz"), ("monaco", "monaco.osm.gz"), ("helsinki", "helsinki.osm.pbf")]
    /// The grid cities: JSON key and nodes.
    static let grids = [("grid_10k", 10_000), ("grid_100k", 100_000), ("grid_1m", 1_000_000)]

    func validate() throws {
        guard !(citiesOnly && gridsOnly) else { throw ValidationError("--cities-only and --grids-only exclude each other") }
        guard pairs > 0, snaps > 0, prefixes > 0 else { throw ValidationError("--pairs, --snaps and --prefixes must be positive") }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.roads")
        var figures = RoadsFigures()
        var targets: [String] = []
        if !gridsOnly {
            let directory = dataDirectory()
            logger.info("extracts from \(directory.path); \(pairs) pairs, \(snaps) snaps, \(prefixes) prefixes per city; seed \(seed)")
            for (name, file) in Self.cities {
                let path = directory.appendingPathComponent(file).path
                guard FileManager.default.fileExists(atPath: path) else {
                    throw RoadsBenchError("\(name): \(path) not found (give --data-dir or WAYPOINT_REFERENCE_DATA_DIR)")
                }
                let bench = CityBench(name: name, extract: path, pairs: pairs, snaps: snaps, prefixes: prefixes, seed: seed, logger: logger)
                let first = targets.count
                let city = try bench.run(targets: &targets)
                logger.info("\(targets[first...].joined(separator: "\n"))")
                switch name {
                case "krems": figures.krems = city
                case "monaco": figures.monaco = city
                default: figures.helsinki = city
                }
            }
        }
        if !citiesOnly {
            for (name, nodes) in Self.grids {
                let gridPairs = nodes >= 1_000_000 ? max(10, pairs / 10) : pairs
                let bench = GridBench(name: name, nodes: nodes, pairs: gridPairs, seed: seed, logger: logger)
                let first = targets.count
                let grid = try bench.run(targets: &targets)
                logger.info("\(targets[first...].joined(separator: "\n"))")
                switch name {
                case "grid_10k": figures.grid10k = grid
                case "grid_100k": figures.grid100k = grid
                default: figures.grid1m = grid
                }
            }
        }
        logger.info("targets (issue 18; 2 cores, quiet machine):\n\(targets.map { "  " + $0 }.joined(separator: "\n"))")
        try BenchOutput.printJSON(figures)
    }

    /// `--data-dir`, else the reference data directory (`WAYPOINT_REFERENCE_DATA_DIR` or `../shared/data` found
    /// walking up from the current directory and from this source file), else `../shared/data` relative to here.
    private func dataDirectory() -> URL {
        if let dataDir { return URL(fileURLWithPath: dataDir, isDirectory: true) }
        return ReferenceDataDirectory.locate() ?? URL(fileURLWithPath: "../shared/data", isDirectory: true)
    }
}
