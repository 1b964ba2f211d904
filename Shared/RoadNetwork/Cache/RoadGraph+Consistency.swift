extension RoadGraph {
    /// What is inconsistent in the graph's arrays, or `nil` when every count agrees and every index is in range: a
    /// cache payload must pass this before it is used, so even a file forged with a valid checksum cannot make a
    /// search index out of bounds.
    var structuralProblem: String? {
        let vertices = vertexNodeIDs.count, edges = edgeSources.count, shapes = shapeNodeIDs.count
        guard vertexLatitudes.count == vertices, vertexLongitudes.count == vertices else { return "vertex arrays differ in length" }
        guard [edgeTargets.count, edgeLengths.count, edgeForwardWeights.count, edgeBackwardWeights.count, edgeWays.count]
            .allSatisfy({ $0 == edges }), edgeShapeStarts.count == edges + 1 else { return "edge arrays differ in length" }
        guard shapeLatitudes.interior.count == shapeNodeIDs.interior.count, shapeLongitudes.interior.count == shapeNodeIDs.interior.count
        else { return "shape arrays differ in length" }
        guard shapeNodeIDs.referencesAreInRange else { return "a shape point names a missing vertex or point" }
        guard edgeSources.allSatisfy({ (0..<Int32(clamping: vertices)).contains($0) }),
              edgeTargets.allSatisfy({ (0..<Int32(clamping: vertices)).contains($0) }) else { return "an edge names a missing vertex" }
        guard edgeWays.allSatisfy({ (0..<Int32(clamping: ways.count)).contains($0) }) else { return "an edge names a missing way" }
        guard Self.isRowIndex(edgeShapeStarts, total: shapes, minimumStep: 2) else { return "edge shapes out of order" }
        for edge in 0..<edges {
            guard shapeNodeIDs.references[Int(edgeShapeStarts[edge])] == ~edgeSources[edge],
                  shapeNodeIDs.references[Int(edgeShapeStarts[edge + 1]) - 1] == ~edgeTargets[edge] else {
                return "an edge's shape does not run from its source to its target"
            }
        }
        guard adjacencyStarts.count == vertices + 1, adjacency.count == 2 * edges,
              Self.isRowIndex(adjacencyStarts, total: adjacency.count, minimumStep: 0) else { return "adjacency rows out of order" }
        guard adjacency.allSatisfy({ (0..<Int32(clamping: 2 * edges)).contains($0) }) else { return "an arc names a missing edge" }
        guard Self.areCoordinates(vertexLatitudes, vertexLongitudes), Self.areCoordinates(shapeLatitudes.interior, shapeLongitudes.interior) else {
            return "a coordinate is out of range"
        }
        guard edgeLengths.allSatisfy({ $0.isFinite && $0 >= 0 }),
              edgeForwardWeights.allSatisfy({ $0 >= 0 }), edgeBackwardWeights.allSatisfy({ $0 >= 0 }) else {
            return "a length or weight is negative or not a number"
        }
        return nil
    }

    /// Whether every latitude is within ±90 and every longitude within ±180.
    private static func areCoordinates(_ latitudes: DegreeColumn, _ longitudes: DegreeColumn) -> Bool {
        latitudes.allSatisfy { (-90.0...90.0).contains($0) } && longitudes.allSatisfy { (-180.0...180.0).contains($0) }
    }

    /// Whether `starts` begins at 0, ends at `total` and rises by at least `minimumStep` each row.
    private static func isRowIndex(_ starts: [Int32], total: Int, minimumStep: Int32) -> Bool {
        guard starts.first == 0, starts.last.map(Int.init) == total else { return false }
        for index in starts.indices.dropFirst() where starts[index] - starts[index - 1] < minimumStep { return false }
        return true
    }
}
