/// The ways a graph's edges come from, stored compactly: each way's OSM id, and an index into the distinct *kinds* —
/// name, ref and profile use — that its ways share (a city has a few thousand kinds for hundreds of thousands of ways:
/// on the 1M-node benchmark grid 586,117 ways share a few thousand kinds, 12 bytes a way instead of ~140).
///
/// Reads like an array of ``RoadWay``: `ways[i]` assembles the way, and ``use(of:)`` reads the profile's use without
/// touching the id or the strings. Built from the ways in order (kinds numbered by first appearance, so the same ways
/// give the same value).
public struct RoadWays: RandomAccessCollection, Sendable, Hashable {
    /// What ways share: everything but the OSM id.
    struct Kind: Sendable, Hashable {
        var name: String?
        var ref: String?
        var use: BikeWayUse
    }

    /// The OSM id of each way.
    public private(set) var osmIDs: [Int64] = []
    /// Each way's index into ``kinds``.
    private(set) var kindIndexes: [Int32] = []
    /// The distinct kinds, in order of first appearance.
    private(set) var kinds: [Kind] = []

    /// No ways.
    public init() {}

    /// `ways` in order.
    public init(_ ways: some Sequence<RoadWay>) {
        var numbers: [Kind: Int32] = [:]
        for way in ways {
            let kind = Kind(name: way.name, ref: way.ref, use: way.use)
            let number: Int32
            if let known = numbers[kind] {
                number = known
            } else {
                number = Int32(kinds.count)
                numbers[kind] = number
                kinds.append(kind)
            }
            osmIDs.append(way.osmID)
            kindIndexes.append(number)
        }
        osmIDs = osmIDs.exactlySized; kindIndexes = kindIndexes.exactlySized; kinds = kinds.exactlySized
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { osmIDs.count }

    public subscript(position: Int) -> RoadWay {
        let kind = kinds[Int(kindIndexes[position])]
        return RoadWay(osmID: osmIDs[position], name: kind.name, ref: kind.ref, use: kind.use)
    }

    /// How the profile uses way `index` (without assembling the whole way).
    public func use(of index: Int) -> BikeWayUse {
        kinds[Int(kindIndexes[index])].use
    }

    /// The number of distinct kinds (name, ref, use) the ways share.
    public var kindCount: Int { kinds.count }

    /// Bytes the ways keep: the id and kind arrays, the kinds, and their strings stored out of line (over 15 UTF-8
    /// bytes, each with a 32-byte header).
    public var memoryBytes: Int {
        var total = osmIDs.count * MemoryLayout<Int64>.stride + kindIndexes.count * MemoryLayout<Int32>.stride
        total += kinds.count * MemoryLayout<Kind>.stride
        for kind in kinds {
            for text in [kind.name, kind.ref, kind.use.surface, kind.use.wayClass].compactMap({ $0 }) where text.utf8.count > 15 {
                total += text.utf8.count + 32
            }
        }
        return total
    }
}
