#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RoadNetwork

/// What a road network keeps in memory. The benchmark reports the growth of the heap's bytes in use (glibc's
/// `malloc_info`: bytes the arenas got from the system, minus their free chunks, plus chunks mapped on their own) —
/// the sum of the live allocations, whatever garbage earlier phases left behind. Resident memory (RSS after
/// `malloc_trim`) is printed beside it: it undercounts a network built into pages an earlier import freed.
enum MemoryInUse {
    /// Bytes of live heap allocations now, or `nil` without glibc's `malloc_info`.
    static func heapBytes() -> Int? {
        #if os(Linux)
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
        var text: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&text, &size) else { return nil }
        let status = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        defer { free(text) }
        guard status == 0, let text else { return nil }
        return heapBytes(mallocInfo: String(cString: text))
        #else
        return nil
        #endif
    }

    /// Live bytes from `malloc_info`'s XML: its last (all-arena) `<system type="current">` minus the last `fast` and
    /// `rest` totals (free chunks, the top chunk included), plus the `mmap` total.
    static func heapBytes(mallocInfo xml: String) -> Int? {
        func last(_ prefix: String) -> Int? {
            guard let line = xml.split(separator: "\n").last(where: { $0.contains(prefix) }),
                  let start = line.range(of: "size=\"")?.upperBound,
                  let end = line[start...].firstIndex(of: "\"") else { return nil }
            return Int(line[start..<end])
        }
        guard let system = last("<system type=\"current\""), let fast = last("<total type=\"fast\""),
              let rest = last("<total type=\"rest\""), let mapped = last("<total type=\"mmap\"") else { return nil }
        return system - fast - rest + mapped
    }

    /// Resident memory of this process in mebibytes, after handing freed heap pages back to the system (glibc's
    /// `malloc_trim(0)`, looked up at run time: Swift's Glibc module does not import `<malloc.h>`).
    static func trimmedResidentMebibytes() -> Double {
        #if os(Linux)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
        return ProcessResources.residentMebibytes(pid: getpid()) ?? 0
    }

    /// A reading of both measures, to subtract from a later one.
    struct Reading {
        /// Live heap bytes (`nil` without `malloc_info`).
        var heapBytes: Int?
        /// RSS after `malloc_trim`, MiB.
        var residentMebibytes: Double

        /// Now.
        static func now() -> Reading {
            Reading(heapBytes: MemoryInUse.heapBytes(), residentMebibytes: MemoryInUse.trimmedResidentMebibytes())
        }

        /// MiB added since `earlier`: the heap's growth, or the RSS growth when the heap cannot be read.
        func mebibytes(since earlier: Reading) -> Double {
            guard let now = heapBytes, let before = earlier.heapBytes else { return residentMebibytes - earlier.residentMebibytes }
            return Double(now - before) / 1_048_576
        }
    }

    /// Bytes of the graph's public flat arrays (vertices, edges, shapes) plus its ways (ids, kinds and their strings): what
    /// any copy of the graph must hold, without the adjacency, the snapping grid, the street index or the landmarks.
    static func graphArrayBytes(_ graph: RoadGraph) -> Int {
        func bytes<T>(_ array: [T]) -> Int { array.count * MemoryLayout<T>.stride }
        var total = graph.vertexLatitudes.memoryBytes + graph.vertexLongitudes.memoryBytes + bytes(graph.vertexNodeIDs)
        total += bytes(graph.edgeSources) + bytes(graph.edgeTargets) + bytes(graph.edgeLengths)
        total += bytes(graph.edgeForwardWeights) + bytes(graph.edgeBackwardWeights) + bytes(graph.edgeWays) + bytes(graph.edgeShapeStarts)
        total += graph.shapeMemoryBytes
        total += graph.ways.memoryBytes
        return total
    }
}
