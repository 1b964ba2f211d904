/// One column of the graph's shape points (latitudes, longitudes or OSM node ids), read by flat shape point index
/// like an array, but storing only what is not already a vertex's: an edge's first and last points are its source and
/// target vertices, so the column keeps, per shape point, a reference — `r ≥ 0`: the `r`-th *interior* point (a node
/// inside a contracted chain), `r < 0`: vertex `~r` — and the interior points' values. The three columns share one
/// reference array (copy-on-write storage, held once) and the vertex columns of the graph.
///
/// On the 1M-node benchmark grid, where almost no edge has interior points, shapes take 4 bytes a point instead of 16
/// (44 MiB less); on real cities the interior points stay and the reference costs 4 bytes a point.
public struct ShapeColumn<Values: RandomAccessCollection & Sendable & Hashable>: RandomAccessCollection, Sendable, Hashable
where Values.Index == Int {
    /// Per shape point: the interior point's index, or `~vertex` (negative) for an edge's end.
    @usableFromInline var references: [Int32]
    /// The interior points' values.
    @usableFromInline var interior: Values
    /// The vertices' values (the graph's own vertex column, shared).
    @usableFromInline var vertices: Values

    init(references: [Int32], interior: Values, vertices: Values) {
        self.references = references
        self.interior = interior
        self.vertices = vertices
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { references.count }

    @inlinable
    public subscript(position: Int) -> Values.Element {
        let reference = Int(references[position])
        return reference >= 0 ? interior[reference] : vertices[~reference]
    }

    /// Whether every reference names an interior point or a vertex that exists.
    var referencesAreInRange: Bool {
        let interiorCount = interior.count, vertexCount = vertices.count
        return references.allSatisfy { $0 >= 0 ? Int($0) < interiorCount : Int(~$0) < vertexCount }
    }
}

extension ShapeColumn where Values == [Int64] {
    /// An empty column.
    init() { self.init(references: [], interior: [], vertices: []) }
}

extension ShapeColumn where Values == DegreeColumn {
    /// An empty column.
    init() { self.init(references: [], interior: DegreeColumn(), vertices: DegreeColumn()) }
}
