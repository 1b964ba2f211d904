import Geo

/// Builds a ``RoadGraph`` from extracts in three streaming passes per extract — relations (which ways are on bicycle
/// routes), ways (which ways a bicycle uses, and how often each node is used), nodes (coordinates of those nodes only)
/// — so memory follows what the graph keeps, not the files.
///
/// A vertex is a used node that ends a way, is shared by two or more usable ways, or repeats in one; chains of other
/// nodes become the shape of one edge. A way referring to nodes its extract lacks (an extract cut at its border) is cut
/// there: its pieces between missing nodes stay, the count of cut references is reported in ``RoadGraphBuilder/Report``.
/// Several extracts go into one graph; nodes with the same OSM id are the same node, so overlapping extracts join and
/// disjoint ones simply do not connect.
public struct RoadGraphBuilder {
    public let profile: BikeProfile

    /// What a build found besides the graph.
    public struct Report: Sendable, Hashable {
        /// Ways the profile lets a bicycle use.
        public var usableWays = 0
        /// References of usable ways to nodes absent from the extracts.
        public var missingNodeReferences = 0
        /// Ways on a bicycle route relation.
        public var cycleNetworkWays = 0
    }

    public init(profile: BikeProfile = BikeProfile()) {
        self.profile = profile
    }

    /// The graph of `extracts` (paths of `.osm`, `.osm.gz`, `.osm.pbf` files). Throws ``OSMReadError`` when any of them
    /// cannot be read whole: no graph is built from a damaged extract.
    public func build(_ extracts: [String]) throws -> (graph: RoadGraph, report: Report) {
        var routes = RouteRelationCollector()
        for path in extracts { try OSMExtract(path: path).read(into: &routes) }
        var ways = UsableWayCollector(profile: profile, cycleNetworkWays: routes.wayIDs)
        for path in extracts { try OSMExtract(path: path).read(into: &ways) }
        var nodes = NodeCollector(wanted: ways.nodeUses)
        for path in extracts { try OSMExtract(path: path).read(into: &nodes) }
        var report = Report(usableWays: ways.records.count, missingNodeReferences: 0,
                            cycleNetworkWays: ways.records.filter(\.way.use.inCycleNetwork).count)
        let graph = assemble(ways: ways, nodes: nodes, report: &report)
        return (graph, report)
    }

    private func assemble(ways: UsableWayCollector, nodes: NodeCollector, report: inout Report) -> RoadGraph {
        var graph = RoadGraph(profile: profile)
        var vertexOf: [Int64: Int32] = [:]
        func vertex(_ id: Int64, _ position: (Double, Double)) -> Int32 {
            if let existing = vertexOf[id] { return existing }
            let index = Int32(graph.vertexNodeIDs.count)
            vertexOf[id] = index
            graph.vertexNodeIDs.append(id)
            graph.vertexLatitudes.append(position.0)
            graph.vertexLongitudes.append(position.1)
            return index
        }
        // Shape points: a reference per point (``ShapeColumn``) and the interior points' values.
        var references: [Int32] = [], interiorNodeIDs: [Int64] = []
        var interiorLatitudes = DegreeColumn(), interiorLongitudes = DegreeColumn()
        // Ways in OSM id order, so a graph does not depend on the order of the extracts.
        var builtWays: [RoadWay] = []
        let order = ways.records.indices.sorted { ways.records[$0].way.osmID < ways.records[$1].way.osmID }
        for recordIndex in order {
            let record = ways.records[recordIndex]
            let wayIndex = Int32(builtWays.count)
            builtWays.append(record.way)
            let refs = ways.nodeIDs[record.nodes]
            var piece: [(id: Int64, position: (Double, Double))] = []
            func flush() {
                defer { piece.removeAll(keepingCapacity: true) }
                guard piece.count >= 2 else { return }
                var start = 0
                for index in 1..<piece.count {
                    let id = piece[index].id
                    let isVertex = index == piece.count - 1 || (ways.nodeUses[id] ?? 0) >= 2
                    guard isVertex else { continue }
                    addEdge(piece[start...index], way: wayIndex, use: record.way.use)
                    start = index
                }
            }
            func addEdge(_ chain: ArraySlice<(id: Int64, position: (Double, Double))>, way: Int32, use: BikeWayUse) {
                guard let first = chain.first, let last = chain.last, first.id != last.id || chain.count > 2 else { return }
                var length = 0.0
                var previous = first.position
                for node in chain.dropFirst() {
                    length += Self.distance(previous, node.position)
                    previous = node.position
                }
                guard first.id != last.id else { return }  // a loop is never part of a shortest route
                let source = vertex(first.id, first.position), target = vertex(last.id, last.position)
                graph.edgeSources.append(source)
                graph.edgeTargets.append(target)
                graph.edgeLengths.append(length)
                graph.edgeForwardWeights.append(use.forward ? length * use.weightPerMetre : .infinity)
                graph.edgeBackwardWeights.append(use.backward ? length * use.weightPerMetre : .infinity)
                graph.edgeWays.append(way)
                references.append(~source)
                for node in chain.dropFirst().dropLast() {
                    references.append(Int32(interiorNodeIDs.count))
                    interiorNodeIDs.append(node.id)
                    interiorLatitudes.append(node.position.0)
                    interiorLongitudes.append(node.position.1)
                }
                references.append(~target)
                graph.edgeShapeStarts.append(Int32(references.count))
            }
            var last: Int64?
            for id in refs {
                if id == last { continue }  // a node repeated in a row adds nothing
                last = id
                guard let position = nodes.positions[id] else {
                    report.missingNodeReferences += 1
                    flush()
                    continue
                }
                piece.append((id, position))
            }
            flush()
        }
        graph.ways = RoadWays(builtWays)
        graph.buildAdjacency()
        graph.shrinkToFit()
        interiorLatitudes.shrinkToFit(); interiorLongitudes.shrinkToFit()
        graph.setShapes(references: references.exactlySized, interiorNodeIDs: interiorNodeIDs.exactlySized,
                        interiorLatitudes: interiorLatitudes, interiorLongitudes: interiorLongitudes)
        return graph
    }

    /// Great-circle distance in metres (Geo's haversine on the mean Earth radius).
    static func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        guard let from = try? Coordinate(latitude: a.0, longitude: a.1), let to = try? Coordinate(latitude: b.0, longitude: b.1) else {
            return 0
        }
        return from.distance(to: to)
    }
}

extension RoadGraph {
    init(profile: BikeProfile) {
        self.profile = profile
    }

    /// Gives every array exactly its size: built by appending, they held up to twice their elements (a third of a
    /// 1M-vertex grid's graph memory was spare capacity).
    mutating func shrinkToFit() {
        vertexLatitudes.shrinkToFit(); vertexLongitudes.shrinkToFit(); vertexNodeIDs = vertexNodeIDs.exactlySized
        edgeSources = edgeSources.exactlySized; edgeTargets = edgeTargets.exactlySized; edgeLengths = edgeLengths.exactlySized
        edgeForwardWeights = edgeForwardWeights.exactlySized; edgeBackwardWeights = edgeBackwardWeights.exactlySized
        edgeWays = edgeWays.exactlySized; edgeShapeStarts = edgeShapeStarts.exactlySized
    }

    /// Sets the shape columns: `references` per shape point (``ShapeColumn``), the interior points' values, and the
    /// graph's vertex columns for the ends. Call once the vertex columns are final: the shape columns share them.
    mutating func setShapes(references: [Int32], interiorNodeIDs: [Int64], interiorLatitudes: DegreeColumn,
                            interiorLongitudes: DegreeColumn) {
        shapeNodeIDs = ShapeColumn(references: references, interior: interiorNodeIDs, vertices: vertexNodeIDs)
        shapeLatitudes = ShapeColumn(references: references, interior: interiorLatitudes, vertices: vertexLatitudes)
        shapeLongitudes = ShapeColumn(references: references, interior: interiorLongitudes, vertices: vertexLongitudes)
    }

    /// Fills the compressed adjacency rows from the edge arrays.
    mutating func buildAdjacency() {
        var degree = [Int32](repeating: 0, count: vertexCount + 1)
        for edge in 0..<edgeCount {
            degree[Int(edgeSources[edge])] += 1
            degree[Int(edgeTargets[edge])] += 1
        }
        adjacencyStarts = [Int32](repeating: 0, count: vertexCount + 1)
        for vertex in 0..<vertexCount { adjacencyStarts[vertex + 1] = adjacencyStarts[vertex] + degree[vertex] }
        var next = Array(adjacencyStarts.dropLast())
        adjacency = [Int32](repeating: 0, count: 2 * edgeCount)
        for edge in 0..<edgeCount {
            let source = Int(edgeSources[edge]), target = Int(edgeTargets[edge])
            adjacency[Int(next[source])] = Int32(edge << 1)
            next[source] += 1
            adjacency[Int(next[target])] = Int32(edge << 1 | 1)
            next[target] += 1
        }
    }
}

extension Array {
    /// A copy holding exactly its elements: an array grown by appending keeps up to twice their room (the one way the
    /// graph's builders drop it).
    var exactlySized: [Element] { withUnsafeBufferPointer { Array($0) } }
}

/// Pass 1: the ways that are members of bicycle route relations.
struct RouteRelationCollector: OSMVisitor {
    var wanted: OSMElementKinds { .relations }
    var wayIDs: Set<Int64> = []

    mutating func visit(relation: OSMRelation) throws {
        guard relation.tags["route"] == "bicycle" else { return }
        for member in relation.members where member.type == .way { wayIDs.insert(member.ref) }
    }
}

/// Pass 2: usable ways, their node references (one flat array) and how often each node is used.
struct UsableWayCollector: OSMVisitor {
    var wanted: OSMElementKinds { .ways }
    let profile: BikeProfile
    let cycleNetworkWays: Set<Int64>

    struct Record {
        var way: RoadWay
        var nodes: Range<Int>
    }

    var records: [Record] = []
    var nodeIDs: [Int64] = []
    /// Names and refs seen so far: the ways of one street share one string instead of holding a copy each.
    private var strings: [String: String] = [:]
    /// Uses of each node by usable ways; a way's ends count twice, so they are always vertices.
    var nodeUses: [Int64: UInt8] = [:]

    init(profile: BikeProfile, cycleNetworkWays: Set<Int64>) {
        self.profile = profile
        self.cycleNetworkWays = cycleNetworkWays
    }

    mutating func visit(way: OSMWay) throws {
        guard way.nodeIDs.count >= 2,
              let use = profile.use(of: way.tags, inCycleNetwork: cycleNetworkWays.contains(way.id)) else { return }
        let start = nodeIDs.count
        nodeIDs.append(contentsOf: way.nodeIDs)
        records.append(Record(way: RoadWay(osmID: way.id, name: interned(way.tags["name"]), ref: interned(way.tags["ref"]), use: use),
                              nodes: start..<nodeIDs.count))
        for id in way.nodeIDs where nodeUses[id, default: 0] < 200 { nodeUses[id, default: 0] += 1 }
        for end in [way.nodeIDs[0], way.nodeIDs[way.nodeIDs.count - 1]] {
            nodeUses[end, default: 0] = max(nodeUses[end, default: 0], 2)
        }
    }

    private mutating func interned(_ string: String?) -> String? {
        guard let string else { return nil }
        if let known = strings[string] { return known }
        strings[string] = string
        return string
    }
}

/// Pass 3: the coordinates of the nodes usable ways refer to.
struct NodeCollector: OSMVisitor {
    var wanted: OSMElementKinds { .nodes }
    let wantedNodes: [Int64: UInt8]
    var positions: [Int64: (Double, Double)] = [:]

    init(wanted: [Int64: UInt8]) {
        self.wantedNodes = wanted
        positions.reserveCapacity(wanted.count)
    }

    mutating func visit(node: OSMNode) throws {
        guard wantedNodes[node.id] != nil else { return }
        // Rounded to OSM's 10⁻⁷ degree as the graph stores them, so lengths are measured between stored coordinates.
        positions[node.id] = (DegreeColumn.quantized(node.latitude), DegreeColumn.quantized(node.longitude))
    }
}
