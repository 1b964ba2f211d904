import Foundation

/// Test and benchmark support: runs the independent peer matcher, `leuvenmapmatching`, on our graph and traces
/// through `scripts/lib/peers/leuven_match.py` (its parameters are documented there), and reads back its node paths.
///
/// Only the graph around the traces is exported (their bounding box widened by ``margin``): leuven's in-memory map
/// searches its edges without a spatial index, so a whole city would dominate its time.
public struct LeuvenPeer: Sendable {
    /// The Python interpreter with leuvenmapmatching installed (`WAYPOINT_PEERS_PYTHON`).
    public var python: String
    /// The script's path.
    public var script: String
    /// Metres the exported area reaches beyond the traces.
    public var margin = 300.0

    /// A peer run with `python` and `script`.
    public init(python: String, script: String) {
        self.python = python
        self.script = script
    }

    /// Keyword overrides for leuven's `DistanceMatcher` (name → value), for a parameter sweep; empty for the
    /// reported figures, which use the script's documented choice.
    public var overrides: [String: Double] = [:]

    /// What the script reads.
    struct Request: Encodable {
        var nodes: [Node] = []
        var edges: [[Int64]] = []
        var traces: [[[Double]]]
        var sigma: Double
        var parameters: [String: Double] = [:]
    }

    /// A node as the script reads it: `[osm_id, lat, lon]`, the id an exact integer.
    struct Node: Encodable {
        var id: Int64
        var latitude: Double, longitude: Double

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(id)
            try container.encode(latitude)
            try container.encode(longitude)
        }
    }

    /// What the peer answered: per trace, its pieces' OSM node sequences and its matching time in seconds.
    public struct Answer: Sendable, Decodable {
        public var paths: [[[Int64]]]
        public var seconds: [Double]
    }

    /// Why the peer gave no answer.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Matches `traces` (fixes of σ `sigma` metres; 0 for exact fixes) on `graph` with the peer. The peer's parameters
    /// follow from `sigma` in the script (its docstring says which and why); `rules` is not used by the peer.
    public func match(_ traces: [[MatchObservation]], sigma: Double, graph: RoadGraph, rules: MapMatchRules = MapMatchRules()) throws -> Answer {
        let input = try JSONEncoder().encode(request(traces, sigma: sigma, graph: graph))
        let output = try run(input)
        do {
            return try JSONDecoder().decode(Answer.self, from: output)
        } catch {
            throw Failure(description: "leuvenmapmatching answered no JSON: \(String(decoding: output.prefix(500), as: UTF8.self))")
        }
    }

    /// What the script is sent for `traces`: the graph around them, the traces as `[lat, lon]`, σ and the overrides.
    func request(_ traces: [[MatchObservation]], sigma: Double, graph: RoadGraph) -> Request {
        var request = Request(traces: traces.map { $0.map { [$0.latitude, $0.longitude] } }, sigma: sigma, parameters: overrides)
        export(graph, around: traces.flatMap { $0 }, into: &request)
        return request
    }

    /// Every shape segment (consecutive OSM nodes of an edge, junctions and shape points alike) with both ends inside
    /// the traces' widened bounding box, as the script's nodes and one directed edge per direction the profile allows.
    private func export(_ graph: RoadGraph, around fixes: [MatchObservation], into request: inout Request) {
        let valid = fixes.filter(MatchLattice.isValid)
        guard let south = valid.map(\.latitude).min(), let north = valid.map(\.latitude).max(),
              let west = valid.map(\.longitude).min(), let east = valid.map(\.longitude).max() else { return }
        let dLat = margin / SnapIndex.metresPerDegree, dLon = margin / (SnapIndex.metresPerDegree * cos(south * .pi / 180))
        let inside = { (point: Int) in
            (south - dLat...north + dLat).contains(graph.shapeLatitudes[point]) && (west - dLon...east + dLon).contains(graph.shapeLongitudes[point])
        }
        var seen = Set<Int64>()
        for edge in 0..<graph.edgeCount {
            let forward = graph.edgeForwardWeights[edge].isFinite, backward = graph.edgeBackwardWeights[edge].isFinite
            for point in Int(graph.edgeShapeStarts[edge])..<(Int(graph.edgeShapeStarts[edge + 1]) - 1) where inside(point) && inside(point + 1) {
                let a = graph.shapeNodeIDs[point], b = graph.shapeNodeIDs[point + 1]
                for k in [point, point + 1] where seen.insert(graph.shapeNodeIDs[k]).inserted {
                    request.nodes.append(Node(id: graph.shapeNodeIDs[k], latitude: graph.shapeLatitudes[k], longitude: graph.shapeLongitudes[k]))
                }
                if forward { request.edges.append([a, b]) }
                if backward { request.edges.append([b, a]) }
            }
        }
    }

    /// Runs the script with `input` on its standard input; its standard output.
    private func run(_ input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        // -O: leuven stops building debug strings (~1.7× faster). A fixed hash seed: leuven breaks ties by iterating
        // sets of states hashed by name, so with Python's random string hashes two runs could answer differently.
        process.arguments = ["-O", script]
        process.environment = ProcessInfo.processInfo.environment.merging(["PYTHONHASHSEED": "0"]) { _, fixed in fixed }
        // The request and the log go through files: no second thread to feed a pipe while the output is read.
        let stem = FileManager.default.temporaryDirectory.appendingPathComponent("leuven-\(UUID().uuidString)")
        let requestFile = stem.appendingPathExtension("json"), errors = stem.appendingPathExtension("log")
        try input.write(to: requestFile)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: requestFile)
            try? FileManager.default.removeItem(at: errors)
        }
        let stdout = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: requestFile)
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "\(script) exited with \(process.terminationStatus): \(log.suffix(1_000))")
        }
        return output
    }
}
