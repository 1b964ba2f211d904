import HTTPTypes
import NIOCore
import Synchronization

/// An upstream body passed through to the client while a copy is kept; when the body ends whole and within the entry
/// limit, the copy is stored in the cache. The client never waits for the copy.
struct CachingBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int
    let onComplete: @Sendable ([UInt8]) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        let onComplete: @Sendable ([UInt8]) -> Void
        /// The chunks so far (`nil` once over the limit); joined into one exactly-sized array at the end, so a stored
        /// body holds neither the spare capacity of a growing (or power-of-two) buffer nor the rest of a network read
        /// it was sliced from.
        var chunks: [ByteBuffer]? = []
        var bytes = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                if let chunks {
                    var whole: [UInt8] = []
                    whole.reserveCapacity(bytes)
                    for chunk in chunks { whole.append(contentsOf: chunk.readableBytesView) }
                    onComplete(whole)
                }
                chunks = nil
                return nil
            }
            if chunks != nil {
                bytes += chunk.readableBytes
                if bytes > limit {
                    chunks = nil
                } else {
                    chunks!.append(chunk)
                }
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, onComplete: onComplete)
    }
}
