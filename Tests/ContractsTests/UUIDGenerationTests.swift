@testable import Contracts
import Foundation
import Testing

@Suite("UUID generation")
struct UUIDGenerationTests {
    private func version(_ id: UUID) -> UInt8 { id.uuid.6 >> 4 }
    private func variant(_ id: UUID) -> UInt8 { id.uuid.8 >> 6 }

    @Test("v4 ids carry version 4 and the RFC 9562 variant and do not repeat")
    func version4() {
        let ids = (0..<10_000).map { _ in UUID.v4() }
        #expect(ids.allSatisfy { version($0) == 4 && variant($0) == 0b10 })
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.v7Milliseconds == nil })
    }

    @Test("v7 ids carry version 7, the variant and the current Unix millisecond")
    func version7() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1_000)
        let id = UUID.v7()
        let after = UInt64(Date().timeIntervalSince1970 * 1_000)
        #expect(version(id) == 7 && variant(id) == 0b10)
        let milliseconds = try #require(id.v7Milliseconds)
        #expect(milliseconds >= before && milliseconds <= after + 1)
    }

    @Test("v7 ids from one process sort in generation order, also within one millisecond")
    func version7Ordering() {
        let ids = (0..<50_000).map { _ in UUID.v7() }
        #expect(Set(ids).count == ids.count)
        // Byte-wise order is the order of the index the log keeps on event ids.
        let bytes = ids.map { withUnsafeBytes(of: $0.uuid) { Array($0) } }
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
    }

    @Test("the v7 clock never goes backwards: counter overflow and a clock step back advance the millisecond")
    func clockMonotonic() {
        let clock = UUIDv7Clock()
        var last = clock.next(now: 1_000)
        for _ in 0..<5_000 {  // more than the 12-bit counter holds in one millisecond
            let next = clock.next(now: 1_000)
            #expect(next.0 > last.0 || (next.0 == last.0 && next.1 > last.1))
            last = next
        }
        #expect(last.0 > 1_000)
        let stepBack = clock.next(now: 900)
        #expect(stepBack.0 > last.0 || (stepBack.0 == last.0 && stepBack.1 > last.1))
    }
}
