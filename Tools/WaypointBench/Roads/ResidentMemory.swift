#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RoadNetwork

/// What a road network keeps in memory, measured two ways: the process's resident memory before and after building
/// it (the figure the benchmark reports), and the bytes of the graph's own arrays (a lower bound printed beside it).
enum ResidentMemory {
    /// Resident memory of this process in mebibytes, after handing freed heap pages back to the system (glibc's
    /// `malloc_trim(0)`), so that the garbage of an import does not count as memory the network keeps.
    static func trimmedMebibytes() -> Double {
        trimHeap()
        return ProcessResources.residentMebibytes(pid: getpid()) ?? 0
    }

    /// Calls glibc's `malloc_trim(0)` when the C library has it (looked up at run time: Swift's Glibc module does not
    /// import `<malloc.h>`).
    private static func trimHeap() {
        #if os(Linux)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// Bytes of the graph's public flat arrays (vertices, edges, shapes) plus its ways' records and their strings: what
    /// any copy of the graph must hold, without the adjacency, the snapping grid, the street index or the landmarks.
    static func graphArrayBytes(_ graph: RoadGraph) -> Int {
        func bytes<T>(_ array: [T]) -> Int { array.count * MemoryLayout<T>.stride }
        var total = bytes(graph.vertexLatitudes) + bytes(graph.vertexLongitudes) + bytes(graph.vertexNodeIDs)
        total += bytes(graph.edgeSources) + bytes(graph.edgeTargets) + bytes(graph.edgeLengths)
        total += bytes(graph.edgeForwardWeights) + bytes(graph.edgeBackwardWeights) + bytes(graph.edgeWays) + bytes(graph.edgeShapeStarts)
        total += bytes(graph.shapeNodeIDs) + bytes(graph.shapeLatitudes) + bytes(graph.shapeLongitudes)
        total += bytes(graph.ways)
        for way in graph.ways {
            // Strings over 15 UTF-8 bytes live out of line (with a 32-byte header).
            for text in [way.name, way.ref, way.use.surface, way.use.wayClass].compactMap({ $0 }) where text.utf8.count > 15 {
                total += text.utf8.count + 32
            }
        }
        return total
    }
}
