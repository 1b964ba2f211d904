import Crypto
import Foundation

/// A road graph ready for a service: imported from its extracts or read from the compiled cache.
///
/// Snapping and street search are built from ``graph`` (``SnapIndex/init(graph:cellDegrees:)``,
/// ``StreetIndex/init(graph:)``): they are derived in one pass over its arrays, so the cache holds the graph, its
/// landmarks and (on a big graph) its hierarchy — what takes searches to compute — only.
public struct LoadedRoadNetwork: Sendable {
    /// Where the graph came from.
    public enum Source: Sendable, Hashable {
        /// The compiled cache, checked against the extracts' key, the profile and format versions and its checksum.
        case cache
        /// The extracts, because there was no usable cache (`nil`: no cache directory was given).
        case imported(cacheMiss: RoadGraphCacheMiss?)
    }

    /// The graph.
    public var graph: RoadGraph
    /// Its landmarks for routing (``RoadRouter/init(network:alternativeRules:)``): read from the cache, or computed
    /// after an import (and cached with the graph).
    public var landmarks: RoadLandmarks
    /// Its contraction hierarchy on a big graph (``RoadHierarchy/wanted(vertexCount:)``), likewise; `nil` otherwise.
    public var hierarchy: RoadHierarchy?
    /// What the import found (kept in the cache, so a cache hit reports it too).
    public var report: RoadGraphBuilder.Report
    /// The extracts' key, hex: SHA-256 over their sorted SHA-256s.
    public var extractsSHA256: String
    /// Where the graph came from.
    public var source: Source
    /// Why writing the cache failed after an import (the graph is still good), if it did.
    public var cacheWriteError: String?
}

/// The entry point services use: the road graph of some extracts, from the cache file in a data directory when it is
/// sound and current, otherwise imported and cached for the next start.
public enum RoadNetworkLoader {
    /// The cache's file name inside the cache directory.
    public static let cacheFileName = "road-network.cache"

    /// The graph of `extracts` under `profile`. With a `cacheDirectory`, a cache built from the same extract contents
    /// with the same profile and format versions, intact, is used; anything else is rebuilt and the cache rewritten
    /// (atomically: a crash mid-write never leaves a half file under the cache's name). Throws ``OSMReadError`` when
    /// an extract cannot be read whole.
    public static func load(extracts: [String], cacheDirectory: String?, profile: BikeProfile = BikeProfile()) throws
        -> LoadedRoadNetwork {
        try load(extracts: extracts, cacheDirectory: cacheDirectory, profile: profile, hierarchyFrom: RoadHierarchy.minimumVertexCount)
    }

    /// The same, building a hierarchy for graphs of `hierarchyFrom` vertices or more (tests force one on small ones).
    static func load(extracts: [String], cacheDirectory: String?, profile: BikeProfile, hierarchyFrom: Int) throws
        -> LoadedRoadNetwork {
        func hierarchy(of graph: RoadGraph) -> RoadHierarchy? {
            graph.vertexCount >= hierarchyFrom && graph.structuralProblem == nil ? RoadHierarchy(graph: graph) : nil
        }
        let key = try extractsKey(of: extracts)
        let hex = key.map { String(format: "%02x", $0) }.joined()
        guard let cacheDirectory else {
            let (graph, report) = try RoadGraphBuilder(profile: profile).build(extracts)
            return LoadedRoadNetwork(graph: graph, landmarks: RoadLandmarks(graph: graph), hierarchy: hierarchy(of: graph), report: report,
                                     extractsSHA256: hex, source: .imported(cacheMiss: nil))
        }
        let file = URL(fileURLWithPath: cacheDirectory).appendingPathComponent(cacheFileName)
        let miss: RoadGraphCacheMiss
        if let data = FileManager.default.contents(atPath: file.path) {
            switch RoadGraphCacheFile.decode([UInt8](data), key: key, profile: profile) {
            case .success(let (graph, report, landmarks, hierarchy))
                    where hierarchy != nil || graph.vertexCount < hierarchyFrom:
                return LoadedRoadNetwork(graph: graph, landmarks: landmarks, hierarchy: hierarchy, report: report, extractsSHA256: hex,
                                         source: .cache)
            case .success: miss = .corrupt("a big graph without its hierarchy")
            case .failure(let reason): miss = reason
            }
        } else {
            miss = FileManager.default.fileExists(atPath: file.path) ? .corrupt("cannot be read") : .missing
        }
        let (graph, report) = try RoadGraphBuilder(profile: profile).build(extracts)
        let landmarks = RoadLandmarks(graph: graph), hierarchy = hierarchy(of: graph)
        var loaded = LoadedRoadNetwork(graph: graph, landmarks: landmarks, hierarchy: hierarchy, report: report, extractsSHA256: hex,
                                       source: .imported(cacheMiss: miss))
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
            try Data(RoadGraphCacheFile.encode(graph, report: report, key: key, landmarks: landmarks, hierarchy: hierarchy))
                .write(to: file, options: .atomic)
        } catch {
            loaded.cacheWriteError = "\(file.path): \(error.localizedDescription)"
        }
        return loaded
    }

    /// The key a cache is built for: SHA-256 over the extracts' own SHA-256s, sorted (the graph does not depend on the
    /// order of the extracts). Reads every file whole, streaming.
    public static func extractsKey(of extracts: [String]) throws(OSMReadError) -> [UInt8] {
        var digests: [[UInt8]] = []
        for path in extracts { digests.append(try sha256(ofFile: path)) }
        var combined = SHA256()
        for digest in digests.sorted(by: { $0.lexicographicallyPrecedes($1) }) { combined.update(data: digest) }
        return Array(combined.finalize())
    }

    /// SHA-256 of a file's bytes, read in 1 MiB chunks (``OSMInputFile`` checks it is a readable regular file).
    static func sha256(ofFile path: String) throws(OSMReadError) -> [UInt8] {
        _ = try OSMInputFile(path: path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw OSMReadError(file: path, reason: .unreadable("cannot be opened"))
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            throw OSMReadError(file: path, reason: .unreadable(error.localizedDescription))
        }
        return Array(hasher.finalize())
    }
}
