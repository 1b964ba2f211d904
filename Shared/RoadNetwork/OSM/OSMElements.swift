/// One OpenStreetMap tag list: the `k=v` pairs of a node, way or relation, in file order.
///
/// A list rather than a dictionary: elements carry a handful of tags, and a linear scan of a few pairs is cheaper to
/// build and to read than hashing — the readers create one per tagged element of an extract.
public struct OSMTags: Sendable, Hashable, Sequence {
    /// The pairs, in file order.
    public private(set) var pairs: [(key: String, value: String)]

    /// Tags from `pairs` (a later duplicate key is kept beside the first; ``subscript(_:)`` reads the first).
    public init(_ pairs: [(key: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// The value of `key`, if the element has it.
    public subscript(_ key: String) -> String? {
        for pair in pairs where pair.key == key { return pair.value }
        return nil
    }

    /// Whether there are no tags.
    public var isEmpty: Bool { pairs.isEmpty }

    /// Number of tags.
    public var count: Int { pairs.count }

    /// Appends a tag.
    public mutating func append(key: String, value: String) {
        pairs.append((key, value))
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
        pairs.makeIterator()
    }

    public static func == (lhs: OSMTags, rhs: OSMTags) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.key)
            hasher.combine(pair.value)
        }
    }
}

/// An OpenStreetMap node: a point with an id.
public struct OSMNode: Sendable, Hashable {
    /// The node's OSM id.
    public var id: Int64
    /// Latitude in degrees (WGS 84).
    public var latitude: Double
    /// Longitude in degrees (WGS 84).
    public var longitude: Double
    /// The node's tags (empty for most nodes).
    public var tags: OSMTags

    /// A node.
    public init(id: Int64, latitude: Double, longitude: Double, tags: OSMTags = OSMTags()) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.tags = tags
    }
}

/// An OpenStreetMap way: an ordered list of node ids with tags.
public struct OSMWay: Sendable, Hashable {
    /// The way's OSM id.
    public var id: Int64
    /// The ids of its nodes, in order (a closed way repeats its first node last).
    public var nodeIDs: [Int64]
    /// The way's tags.
    public var tags: OSMTags

    /// A way.
    public init(id: Int64, nodeIDs: [Int64], tags: OSMTags = OSMTags()) {
        self.id = id
        self.nodeIDs = nodeIDs
        self.tags = tags
    }
}

/// What an OpenStreetMap relation member is.
public enum OSMMemberType: String, Sendable, Hashable {
    case node
    case way
    case relation
}

/// One member of a relation.
public struct OSMMember: Sendable, Hashable {
    /// The member's kind.
    public var type: OSMMemberType
    /// The member's OSM id.
    public var ref: Int64
    /// Its role in the relation (often empty).
    public var role: String

    /// A member.
    public init(type: OSMMemberType, ref: Int64, role: String = "") {
        self.type = type
        self.ref = ref
        self.role = role
    }
}

/// An OpenStreetMap relation: ordered members with tags (here: `route=bicycle` relations mark their ways).
public struct OSMRelation: Sendable, Hashable {
    /// The relation's OSM id.
    public var id: Int64
    /// Its members, in order.
    public var members: [OSMMember]
    /// The relation's tags.
    public var tags: OSMTags

    /// A relation.
    public init(id: Int64, members: [OSMMember], tags: OSMTags = OSMTags()) {
        self.id = id
        self.members = members
        self.tags = tags
    }
}

/// Which kinds of element a reading pass wants.
public struct OSMElementKinds: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Nodes.
    public static let nodes = OSMElementKinds(rawValue: 1)
    /// Ways.
    public static let ways = OSMElementKinds(rawValue: 2)
    /// Relations.
    public static let relations = OSMElementKinds(rawValue: 4)
    /// Everything.
    public static let all: OSMElementKinds = [.nodes, .ways, .relations]
}

/// What an extract's header says (XML `<bounds>`, PBF `HeaderBlock`).
public struct OSMHeader: Sendable, Hashable {
    /// The extract's bounding box as declared by its writer: south, west, north, east in degrees; `nil` if none.
    public var bounds: (south: Double, west: Double, north: Double, east: Double)?
    /// The program that wrote the file, if it says.
    public var writingProgram: String?

    /// A header.
    public init(bounds: (south: Double, west: Double, north: Double, east: Double)? = nil, writingProgram: String? = nil) {
        self.bounds = bounds
        self.writingProgram = writingProgram
    }

    public static func == (lhs: OSMHeader, rhs: OSMHeader) -> Bool {
        lhs.writingProgram == rhs.writingProgram && lhs.bounds.map { [$0.south, $0.west, $0.north, $0.east] }
            == rhs.bounds.map { [$0.south, $0.west, $0.north, $0.east] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(writingProgram)
        if let bounds { for value in [bounds.south, bounds.west, bounds.north, bounds.east] { hasher.combine(value) } }
    }
}

/// Receives the elements of an extract as a reader streams it: nothing is collected unless the visitor keeps it, so
/// memory is bounded by what the visitor keeps, not by the file.
public protocol OSMVisitor {
    /// The kinds this pass wants; readers skip the others as cheaply as their format allows.
    var wanted: OSMElementKinds { get }
    /// The extract's header (before any element).
    mutating func visit(header: OSMHeader) throws
    /// A node (only when ``wanted`` contains `.nodes`).
    mutating func visit(node: OSMNode) throws
    /// A way (only when ``wanted`` contains `.ways`).
    mutating func visit(way: OSMWay) throws
    /// A relation (only when ``wanted`` contains `.relations`).
    mutating func visit(relation: OSMRelation) throws
}

extension OSMVisitor {
    public mutating func visit(header: OSMHeader) throws {}
    public mutating func visit(node: OSMNode) throws {}
    public mutating func visit(way: OSMWay) throws {}
    public mutating func visit(relation: OSMRelation) throws {}
}
