/// A column of latitudes or longitudes stored as OSM stores them: whole units of 10⁻⁷ degree in 32 bits (half the
/// memory of `Double`s; the 1M-node benchmark grid's vertices and shapes take 37 MiB less), read as `Double` degrees.
///
/// OSM's own precision is 10⁻⁷ degree (about a centimetre), so nothing an extract says is lost: the graph builder
/// rounds every node to it (``quantized(_:)``) before it measures a length, so lengths, weights and everything derived
/// from the graph are computed from exactly the coordinates this column gives back.
public struct DegreeColumn: RandomAccessCollection, Sendable, Hashable {
    /// Units of 10⁻⁷ degree.
    @usableFromInline var units: [Int32]

    /// Degrees per unit's inverse: a unit is 1 / 10⁷ degree.
    @usableFromInline static let unitsPerDegree = 10_000_000.0

    public init() { units = [] }

    init(units: [Int32]) { self.units = units }

    public var startIndex: Int { 0 }
    public var endIndex: Int { units.count }

    @inlinable
    public subscript(position: Int) -> Double {
        Double(units[position]) / Self.unitsPerDegree
    }

    /// `degrees` rounded to the nearest 10⁻⁷ degree, as this column would give it back.
    public static func quantized(_ degrees: Double) -> Double {
        Double(unit(degrees)) / unitsPerDegree
    }

    /// The whole units nearest `degrees` (a coordinate on the globe: |degrees| ≤ 180).
    static func unit(_ degrees: Double) -> Int32 {
        Int32((Swift.min(Swift.max(degrees, -180), 180) * unitsPerDegree).rounded())  // NaN: min/max give the bound
    }

    /// Appends `degrees`, rounded to the nearest unit.
    mutating func append(_ degrees: Double) {
        units.append(Self.unit(degrees))
    }

    /// Bytes the column keeps.
    public var memoryBytes: Int { units.count * MemoryLayout<Int32>.stride }

    /// Drops spare capacity.
    mutating func shrinkToFit() {
        units = units.exactlySized
    }
}
