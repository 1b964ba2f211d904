import Crypto
import Foundation

/// The compiled cache of a ``RoadGraph``: a versioned, checksummed binary file that loads in milliseconds.
///
/// Layout (little-endian): the magic `WPROADGR`; ``formatVersion`` (`UInt32`); the profile version (`Int64`); the
/// extracts' key (32 bytes, ``RoadNetworkLoader/extractsKey(of:)``); the payload's length (`UInt64`) and SHA-256 (32
/// bytes); then the payload — the build report and every flat array of the graph as raw little-endian memory
/// (``CacheByteWriter``), the ways, the graph's ``RoadLandmarks`` (so a start runs no landmark searches) and, on a big
/// graph, its ``RoadHierarchy`` (a flag byte, then ranks and both arc lists; minutes to build on 1M vertices). A file
/// whose magic, format version, profile version or key differ is stale; one whose length, checksum or structure do not
/// hold is corrupt. Either is rebuilt, never trusted.
public enum RoadGraphCacheFile {
    /// Bumped whenever the layout changes (2: landmarks added; 3: the roundabout flag in the ways' flag byte — a
    /// version-2 file has no such bit and is rebuilt; 4: the hierarchy block; 5: coordinates in 10⁻⁷-degree `Int32`s,
    /// shapes as references to vertices and interior points).
    public static let formatVersion: UInt32 = 5
    static let magic = Array("WPROADGR".utf8)
    static let headerSize = 8 + 4 + 8 + 32 + 8 + 32

    /// The file's bytes for `graph`, its `landmarks` (computed here when `nil`; none for a graph whose arrays
    /// disagree, which decoding refuses anyway) and its `hierarchy` (none when `nil`), built from the extracts whose key
    /// is `key` (32 bytes, a SHA-256; any other length is hashed to 32 bytes, here and in ``decode(_:key:profile:)``
    /// alike).
    public static func encode(_ graph: RoadGraph, report: RoadGraphBuilder.Report, key: [UInt8], landmarks: RoadLandmarks? = nil,
                              hierarchy: RoadHierarchy? = nil) -> [UInt8] {
        let key = normalized(key)
        var payload = encodePayload(graph, report: report)
        encode(landmarks ?? RoadLandmarks(graph: graph, count: graph.structuralProblem == nil ? nil : 0), into: &payload)
        encode(hierarchy, into: &payload)
        var header = CacheByteWriter()
        for byte in magic { header.write(byte) }
        header.write(formatVersion)
        header.write(Int64(graph.profile.version))
        for byte in key { header.write(byte) }
        header.write(UInt64(payload.bytes.count))
        for byte in SHA256.hash(data: payload.bytes) { header.write(byte) }
        return header.bytes + payload.bytes
    }

    /// The graph, its landmarks and hierarchy in `bytes`, if they are a sound cache of the extracts with `key` under
    /// `profile`; otherwise why not.
    public static func decode(_ bytes: [UInt8], key: [UInt8], profile: BikeProfile)
        -> Result<(graph: RoadGraph, report: RoadGraphBuilder.Report, landmarks: RoadLandmarks, hierarchy: RoadHierarchy?), RoadGraphCacheMiss> {
        let key = normalized(key)
        guard bytes.count >= headerSize else { return .failure(.corrupt("\(bytes.count) bytes, shorter than the header")) }
        guard Array(bytes[0..<8]) == magic else { return .failure(.corrupt("not a road graph cache (magic)")) }
        do {
            var header = CacheByteReader(bytes, offset: 8)
            let format = try header.read(UInt32.self)
            guard format == formatVersion else { return .failure(.staleFormat(found: Int(format))) }
            let profileVersion = try header.read(Int64.self)
            guard profileVersion == Int64(profile.version) else { return .failure(.staleProfile(found: Int(profileVersion))) }
            guard Array(try header.readBytes(32)) == key else { return .failure(.staleExtracts) }
            let length = try header.read(UInt64.self)
            let checksum = Array(try header.readBytes(32))
            guard length == UInt64(bytes.count - headerSize) else {
                return .failure(.corrupt("payload of \(bytes.count - headerSize) bytes where the header says \(length)"))
            }
            guard Array(SHA256.hash(data: bytes[headerSize...])) == checksum else { return .failure(.corrupt("checksum mismatch")) }
            var payload = CacheByteReader(bytes, offset: headerSize)
            let decoded = try decodePayload(&payload, profile: profile)
            let landmarks = try decodeLandmarks(&payload, graph: decoded.graph)
            let hierarchy = try decodeHierarchy(&payload, graph: decoded.graph)
            guard payload.isAtEnd else { return .failure(.corrupt("bytes after the payload")) }
            let vertexCount = decoded.graph.vertexCount
            if let problem = decoded.graph.structuralProblem ?? landmarks.problem(vertexCount: vertexCount)
                ?? hierarchy?.problem(vertexCount: vertexCount) {
                return .failure(.corrupt(problem))
            }
            return .success((decoded.graph, decoded.report, landmarks, hierarchy))
        } catch {
            return .failure(.corrupt("payload ends early (byte \(error.offset))"))
        }
    }

    private static func normalized(_ key: [UInt8]) -> [UInt8] {
        key.count == 32 ? key : Array(SHA256.hash(data: key))
    }

    private static func encodePayload(_ graph: RoadGraph, report: RoadGraphBuilder.Report) -> CacheByteWriter {
        var out = CacheByteWriter()
        for count in [report.usableWays, report.missingNodeReferences, report.cycleNetworkWays] { out.write(Int64(count)) }
        out.write(array: graph.vertexLatitudes.units)
        out.write(array: graph.vertexLongitudes.units)
        out.write(array: graph.vertexNodeIDs)
        out.write(array: graph.edgeSources)
        out.write(array: graph.edgeTargets)
        out.write(array: graph.edgeLengths)
        out.write(array: graph.edgeForwardWeights)
        out.write(array: graph.edgeBackwardWeights)
        out.write(array: graph.edgeWays)
        out.write(array: graph.edgeShapeStarts)
        out.write(array: graph.shapeNodeIDs.references)
        out.write(array: graph.shapeNodeIDs.interior)
        out.write(array: graph.shapeLatitudes.interior.units)
        out.write(array: graph.shapeLongitudes.interior.units)
        out.write(array: graph.adjacencyStarts)
        out.write(array: graph.adjacency)
        out.write(array: graph.ways.map(\.osmID))
        out.write(array: graph.ways.map(\.use.speed))
        out.write(array: graph.ways.map(\.use.preference))
        out.write(array: graph.ways.map(\.use.weightPerMetre))
        out.write(array: graph.ways.map { WayFlags($0.use).rawValue })
        for way in graph.ways {
            out.write(string: way.name)
            out.write(string: way.ref)
            out.write(string: way.use.wayClass)
            out.write(string: way.use.surface)
        }
        return out
    }

    /// The landmark block: vertices, units, then the rows of steps.
    private static func encode(_ landmarks: RoadLandmarks, into out: inout CacheByteWriter) {
        out.write(array: landmarks.vertices)
        out.write(array: landmarks.units)
        out.write(array: landmarks.steps)
    }

    private static func decodeLandmarks(_ input: inout CacheByteReader, graph: RoadGraph) throws(CacheByteReader.Truncated) -> RoadLandmarks {
        let vertices = try input.readArray(of: Int32.self), units = try input.readArray(of: Double.self)
        return RoadLandmarks(vertices: vertices, units: units, steps: try input.readArray(of: UInt16.self), graph: graph)
    }

    /// The hierarchy block: a flag byte (0: none), then ranks, the upward and the downward arcs.
    private static func encode(_ hierarchy: RoadHierarchy?, into out: inout CacheByteWriter) {
        guard let hierarchy else { out.write(UInt8(0)); return }
        out.write(UInt8(1))
        out.write(array: hierarchy.ranks)
        for list in [hierarchy.upward, hierarchy.downward] {
            out.write(array: list.starts)
            out.write(array: list.heads)
            out.write(array: list.weights)
        }
    }

    private static func decodeHierarchy(_ input: inout CacheByteReader, graph: RoadGraph) throws(CacheByteReader.Truncated) -> RoadHierarchy? {
        guard try input.read(UInt8.self) != 0 else { return nil }
        let ranks = try input.readArray(of: Int32.self)
        func list() throws(CacheByteReader.Truncated) -> RoadHierarchy.ArcList {
            RoadHierarchy.ArcList(starts: try input.readArray(of: Int32.self), heads: try input.readArray(of: Int32.self),
                                  weights: try input.readArray(of: Float.self))
        }
        let upward = try list()
        return RoadHierarchy(ranks: ranks, upward: upward, downward: try list(), graph: graph)
    }

    private static func decodePayload(_ input: inout CacheByteReader, profile: BikeProfile) throws(CacheByteReader.Truncated)
        -> (graph: RoadGraph, report: RoadGraphBuilder.Report) {
        let report = RoadGraphBuilder.Report(usableWays: Int(try input.read(Int64.self)),
                                             missingNodeReferences: Int(try input.read(Int64.self)),
                                             cycleNetworkWays: Int(try input.read(Int64.self)))
        var graph = RoadGraph(profile: profile)
        graph.vertexLatitudes = DegreeColumn(units: try input.readArray(of: Int32.self))
        graph.vertexLongitudes = DegreeColumn(units: try input.readArray(of: Int32.self))
        graph.vertexNodeIDs = try input.readArray(of: Int64.self)
        graph.edgeSources = try input.readArray(of: Int32.self)
        graph.edgeTargets = try input.readArray(of: Int32.self)
        graph.edgeLengths = try input.readArray(of: Double.self)
        graph.edgeForwardWeights = try input.readArray(of: Double.self)
        graph.edgeBackwardWeights = try input.readArray(of: Double.self)
        graph.edgeWays = try input.readArray(of: Int32.self)
        graph.edgeShapeStarts = try input.readArray(of: Int32.self)
        let references = try input.readArray(of: Int32.self), interiorNodeIDs = try input.readArray(of: Int64.self)
        let interiorLatitudes = DegreeColumn(units: try input.readArray(of: Int32.self))
        graph.setShapes(references: references, interiorNodeIDs: interiorNodeIDs, interiorLatitudes: interiorLatitudes,
                        interiorLongitudes: DegreeColumn(units: try input.readArray(of: Int32.self)))
        graph.adjacencyStarts = try input.readArray(of: Int32.self)
        graph.adjacency = try input.readArray(of: Int32.self)
        graph.ways = try decodeWays(&input)
        return (graph, report)
    }

    private static func decodeWays(_ input: inout CacheByteReader) throws(CacheByteReader.Truncated) -> RoadWays {
        let ids = try input.readArray(of: Int64.self)
        let speeds = try input.readArray(of: Double.self), preferences = try input.readArray(of: Double.self)
        let weights = try input.readArray(of: Double.self), flags = try input.readArray(of: UInt8.self)
        guard [speeds.count, preferences.count, weights.count, flags.count].allSatisfy({ $0 == ids.count }) else {
            throw CacheByteReader.Truncated(offset: input.offset)
        }
        var ways: [RoadWay] = []
        ways.reserveCapacity(ids.count)
        for index in ids.indices {
            let name = try input.readString(), ref = try input.readString()
            let wayClass = try input.readString() ?? "", surface = try input.readString()
            let flag = WayFlags(rawValue: flags[index])
            let use = BikeWayUse(forward: flag.contains(.forward), backward: flag.contains(.backward),
                                 mode: flag.contains(.pushed) ? .push : .ride, speed: speeds[index],
                                 preference: preferences[index], wayClass: wayClass, surface: surface,
                                 inCycleNetwork: flag.contains(.cycleNetwork), isRoundabout: flag.contains(.roundabout),
                                 weightPerMetre: weights[index])
            ways.append(RoadWay(osmID: ids[index], name: name, ref: ref, use: use))
        }
        return RoadWays(ways)
    }
}

/// A way's yes/no facts in one byte of the cache.
struct WayFlags: OptionSet {
    let rawValue: UInt8
    static let forward = WayFlags(rawValue: 1)
    static let backward = WayFlags(rawValue: 2)
    static let pushed = WayFlags(rawValue: 4)
    static let cycleNetwork = WayFlags(rawValue: 8)
    static let roundabout = WayFlags(rawValue: 16)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ use: BikeWayUse) {
        var flags: WayFlags = []
        if use.forward { flags.insert(.forward) }
        if use.backward { flags.insert(.backward) }
        if use.mode == .push { flags.insert(.pushed) }
        if use.inCycleNetwork { flags.insert(.cycleNetwork) }
        if use.isRoundabout { flags.insert(.roundabout) }
        self = flags
    }
}
