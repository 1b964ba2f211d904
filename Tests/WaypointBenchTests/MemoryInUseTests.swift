import Testing
@testable import WaypointBench

/// The benchmark's memory figure: live heap bytes from glibc's `malloc_info`.
@Suite("The benchmark's memory measure")
struct MemoryInUseTests {
    @Test("the live heap grows by what an allocation keeps and shrinks when it is freed")
    func heapFollowsAllocations() throws {
        // Other suites run in parallel in this process and move the heap too: each trial's readings are microseconds
        // apart (the block is never touched), and the median of 7 trials must be within 1 MiB.
        var growths: [Int] = [], leftovers: [Int] = []
        for _ in 0..<7 {
            let before = try #require(MemoryInUse.heapBytes())
            let block = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 16)
            let during = try #require(MemoryInUse.heapBytes())
            block.deallocate()
            let after = try #require(MemoryInUse.heapBytes())
            growths.append(during - before)
            leftovers.append(after - before)
        }
        #expect(abs(growths.sorted()[3] - (64 << 20)) < 1 << 20)
        #expect(abs(leftovers.sorted()[3]) < 1 << 20)
    }

    @Test("the all-arena totals are the last ones of malloc_info's XML")
    func parsesTotals() {
        let xml = """
            <malloc version="1">
            <heap nr="0">
            <total type="fast" count="1" size="10"/>
            <total type="rest" count="2" size="20"/>
            <system type="current" size="1000"/>
            </heap>
            <total type="fast" count="3" size="30"/>
            <total type="rest" count="4" size="400"/>
            <total type="mmap" count="1" size="5000"/>
            <system type="current" size="2000"/>
            <system type="max" size="9999"/>
            </malloc>
            """
        #expect(MemoryInUse.heapBytes(mallocInfo: xml) == 2_000 - 30 - 400 + 5_000)
        #expect(MemoryInUse.heapBytes(mallocInfo: "<malloc/>") == nil)
    }
}
