extension RoadGraph {
    /// The weakly connected components (edges taken in both directions, one-way or not): the component index of every
    /// vertex, numbered from 0 in order of each component's smallest vertex, and each component's vertex count.
    /// Vertices in different components never have a route between them.
    public func weakComponents() -> (componentOfVertex: [Int32], sizes: [Int]) {
        var parent = Array(0..<vertexCount)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        for edge in 0..<edgeCount {
            let a = find(Int(edgeSources[edge])), b = find(Int(edgeTargets[edge]))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var componentOfRoot: [Int: Int32] = [:]
        var componentOfVertex = [Int32](repeating: 0, count: vertexCount)
        var sizes: [Int] = []
        for vertex in 0..<vertexCount {
            let root = find(vertex)
            let component = componentOfRoot[root] ?? {
                sizes.append(0)
                componentOfRoot[root] = Int32(sizes.count - 1)
                return Int32(sizes.count - 1)
            }()
            componentOfVertex[vertex] = component
            sizes[Int(component)] += 1
        }
        return (componentOfVertex, sizes)
    }
}
