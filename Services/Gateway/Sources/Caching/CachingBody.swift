import HTTPTypes
import NIOCore
import Synchronization

/// An upstream body passed through to the client while a copy is kept; when the body ends whole and within the entry
/// limit, the copy is stored in the cache. The client never waits for the copy.
struct CachingBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int
    let onComplete: @Sendable (ByteBuffer) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        let onComplete: @Sendable (ByteBuffer) -> Void
        var copy: ByteBuffer? = ByteBuffer()

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                if let copy { onComplete(copy) }
                copy = nil
                return nil
            }
            if copy != nil {
                if copy!.readableBytes + chunk.readableBytes > limit {
                    copy = nil
                } else {
                    copy!.writeImmutableBuffer(chunk)
                }
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, onComplete: onComplete)
    }
}
