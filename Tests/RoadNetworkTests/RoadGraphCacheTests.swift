import Foundation
import Testing
@testable import RoadNetwork

@Suite("The compiled road graph cache")
struct RoadGraphCacheTests {
    /// A fresh directory with the square fixture as an extract, and a cache directory beside it.
    struct Scratch {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("road-cache-\(UUID().uuidString)").path
        var extract: String { root + "/square.osm" }
        var cacheDirectory: String { root + "/cache" }
        var cacheFile: String { cacheDirectory + "/" + RoadNetworkLoader.cacheFileName }

        init(document: String = RoadGraphTests.square) throws {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try document.write(toFile: extract, atomically: true, encoding: .utf8)
        }

        func load(profile: BikeProfile = BikeProfile()) throws -> LoadedRoadNetwork {
            try RoadNetworkLoader.load(extracts: [extract], cacheDirectory: cacheDirectory, profile: profile)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }

        /// Rewrites the cache file with `change` applied to its bytes.
        func damage(_ change: (inout [UInt8]) -> Void) throws {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cacheFile)))
            change(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: cacheFile))
        }
    }

    /// Every array and way of two graphs are equal.
    static func expectSame(_ a: RoadGraph, _ b: RoadGraph, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.vertexNodeIDs == b.vertexNodeIDs && a.vertexLatitudes == b.vertexLatitudes
                && a.vertexLongitudes == b.vertexLongitudes, sourceLocation: sourceLocation)
        #expect(a.edgeSources == b.edgeSources && a.edgeTargets == b.edgeTargets && a.edgeLengths == b.edgeLengths
                && a.edgeForwardWeights == b.edgeForwardWeights && a.edgeBackwardWeights == b.edgeBackwardWeights
                && a.edgeWays == b.edgeWays && a.edgeShapeStarts == b.edgeShapeStarts, sourceLocation: sourceLocation)
        #expect(a.shapeNodeIDs == b.shapeNodeIDs && a.shapeLatitudes == b.shapeLatitudes && a.shapeLongitudes == b.shapeLongitudes,
                sourceLocation: sourceLocation)
        #expect(a.adjacencyStarts == b.adjacencyStarts && a.adjacency == b.adjacency && a.ways == b.ways, sourceLocation: sourceLocation)
    }

    @Test("Krems imports once, then loads from the cache: the same graph and report, in milliseconds")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("road-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory)
        #expect(first.source == .imported(cacheMiss: .missing))
        #expect(first.cacheWriteError == nil)
        let clock = ContinuousClock()
        var second: LoadedRoadNetwork?
        let elapsed = try clock.measure {
            second = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory)
        }
        let cached = try #require(second)
        #expect(cached.source == .cache)
        #expect(cached.report == first.report && cached.extractsSHA256 == first.extractsSHA256)
        Self.expectSame(cached.graph, first.graph)
        var keyBytes: [UInt8] = []
        let key = try clock.measure { keyBytes = try RoadNetworkLoader.extractsKey(of: [OSMFixtures.krems]) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + RoadNetworkLoader.cacheFileName)))
        var decoded = false
        let decode = clock.measure {
            if case .success = RoadGraphCacheFile.decode(bytes, key: keyBytes, profile: BikeProfile()) { decoded = true }
        }
        #expect(decoded)
        print("Krems cache load (debug build): \(elapsed) (extracts' key \(key), \(bytes.count) bytes decoded in \(decode)), "
            + "\(cached.graph.vertexCount) vertices, \(cached.graph.edgeCount) edges; derived from it: "
            + "SnapIndex \(clock.measure { _ = SnapIndex(graph: cached.graph) }), StreetIndex \(clock.measure { _ = StreetIndex(graph: cached.graph) })")
        // A search on the loaded graph answers like one on the imported graph.
        let target = cached.graph.vertexCount / 2
        #expect(ShortestPaths(graph: cached.graph).path(from: 0, to: target) == ShortestPaths(graph: first.graph).path(from: 0, to: target))
    }

    @Test("a cache of other extracts, another profile version or another format version is stale and rebuilt")
    func stale() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fresh = try scratch.load()
        #expect(try scratch.load().source == .cache)

        var other = BikeProfile()
        other.version = 2
        #expect(try scratch.load(profile: other).source == .imported(cacheMiss: .staleProfile(found: 1)))
        #expect(try scratch.load(profile: other).source == .cache)  // rewritten for version 2
        #expect(try scratch.load().source == .imported(cacheMiss: .staleProfile(found: 2)))

        try scratch.damage { bytes in bytes.replaceSubrange(8..<12, with: [99, 0, 0, 0]) }
        #expect(try scratch.load().source == .imported(cacheMiss: .staleFormat(found: 99)))

        let changed = RoadGraphTests.square.replacingOccurrences(of: "\"cycleway\"", with: "\"footway\"")
        try changed.write(toFile: scratch.extract, atomically: true, encoding: .utf8)
        let rebuilt = try scratch.load()
        #expect(rebuilt.source == .imported(cacheMiss: .staleExtracts))
        #expect(rebuilt.extractsSHA256 != fresh.extractsSHA256)
        #expect(rebuilt.graph.edgeForwardWeights != fresh.graph.edgeForwardWeights)
    }

    @Test("a truncated or bit-flipped cache is corrupt: rebuilt, never trusted")
    func corrupt() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let good = try scratch.load().graph
        let size = try #require(FileManager.default.attributesOfItem(atPath: scratch.cacheFile)[.size] as? Int)
        var generator = SystemRandomNumberGenerator()
        let cuts = [0, 7, 40, RoadGraphCacheFile.headerSize, RoadGraphCacheFile.headerSize + 5, size / 2, size - 1]
            + (0..<4).map { _ in Int.random(in: 1..<size, using: &generator) }
        for cut in cuts {
            try scratch.damage { $0.removeLast($0.count - cut) }
            let loaded = try scratch.load()
            guard case .imported(cacheMiss: .corrupt?) = loaded.source else {
                Issue.record("cut at \(cut) of \(size): \(loaded.source)")
                continue
            }
            Self.expectSame(loaded.graph, good)
        }
        for _ in 0..<24 {
            let bit = Int.random(in: 0..<(size * 8), using: &generator)
            try scratch.damage { $0[bit / 8] ^= UInt8(1 << (bit % 8)) }
            let loaded = try scratch.load()
            #expect(loaded.source != .cache, "bit \(bit) flipped of \(size * 8)")
            Self.expectSame(loaded.graph, good)
        }
        try scratch.damage { $0 = Array("not a cache at all".utf8) }
        #expect(try scratch.load().source == .imported(cacheMiss: .corrupt("18 bytes, shorter than the header")))
        #expect(try scratch.load().source == .cache)
    }

    @Test("a payload with a valid checksum but inconsistent arrays (missing vertex, rows out of order, a coordinate off the globe, a shape point naming nothing or not its edge's end) is refused")
    func forged() throws {
        let built = try RoadGraphTests.build(RoadGraphTests.square)
        var graph = built.0
        let report = built.1
        graph.edgeSources[0] = Int32(graph.vertexCount + 5)
        let key = [UInt8](repeating: 7, count: 32)
        let bytes = RoadGraphCacheFile.encode(graph, report: report, key: key)
        guard case .failure(.corrupt(let why)) = RoadGraphCacheFile.decode(bytes, key: key, profile: BikeProfile()) else {
            Issue.record("a forged payload was accepted")
            return
        }
        #expect(why == "an edge names a missing vertex")
        graph.edgeSources[0] = 0
        graph.adjacencyStarts[1] = -1
        let rows = RoadGraphCacheFile.encode(graph, report: report, key: key)
        #expect(RoadGraphCacheFile.decode(rows, key: key, profile: BikeProfile()).failureReason == .corrupt("adjacency rows out of order"))
        graph.adjacencyStarts[1] = built.0.adjacencyStarts[1]
        graph.vertexLatitudes.units[0] = 1_000_000_000  // 100° north
        let coordinates = RoadGraphCacheFile.encode(graph, report: report, key: key)
        #expect(RoadGraphCacheFile.decode(coordinates, key: key, profile: BikeProfile()).failureReason
                == .corrupt("a coordinate is out of range"))
        graph.vertexLatitudes = built.0.vertexLatitudes
        graph.shapeNodeIDs.references[0] = .max
        let reference = RoadGraphCacheFile.encode(graph, report: report, key: key)
        #expect(RoadGraphCacheFile.decode(reference, key: key, profile: BikeProfile()).failureReason
                == .corrupt("a shape point names a missing vertex or point"))
        graph.shapeNodeIDs.references[0] = ~(graph.edgeSources[0] == 0 ? 1 : 0)
        let end = RoadGraphCacheFile.encode(graph, report: report, key: key)
        #expect(RoadGraphCacheFile.decode(end, key: key, profile: BikeProfile()).failureReason
                == .corrupt("an edge's shape does not run from its source to its target"))
        graph.shapeNodeIDs = built.0.shapeNodeIDs
        let sound = RoadGraphCacheFile.encode(graph, report: report, key: key)
        #expect(RoadGraphCacheFile.decode(sound, key: key, profile: BikeProfile()).failureReason == nil)
    }

    @Test("the key is the extracts' contents, in any order; an unwritable cache directory still gives the graph")
    func keyAndUnwritable() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let other = scratch.root + "/other.osm"
        try RoadGraphTests.square.replacingOccurrences(of: "Südtiroler", with: "Tiroler").write(toFile: other, atomically: true, encoding: .utf8)
        let forward = try RoadNetworkLoader.extractsKey(of: [scratch.extract, other])
        #expect(forward == (try RoadNetworkLoader.extractsKey(of: [other, scratch.extract])))
        #expect(forward != (try RoadNetworkLoader.extractsKey(of: [scratch.extract])))
        #expect(throws: OSMReadError.self) { try RoadNetworkLoader.extractsKey(of: [scratch.root + "/missing.osm"]) }

        let blocked = try RoadNetworkLoader.load(extracts: [scratch.extract], cacheDirectory: scratch.extract + "/cache")
        #expect(blocked.source == .imported(cacheMiss: .missing))
        #expect(blocked.cacheWriteError != nil)
        #expect(blocked.graph.edgeCount == (try scratch.load().graph.edgeCount))
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failureReason: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
