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
        let onComplete: @Sendable ([UInt8]) -> Void
        var copy: BodyCopy

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                if let whole = copy.take() { onComplete(whole) }
                return nil
            }
            copy.append(chunk)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), onComplete: onComplete, copy: BodyCopy(limit: limit))
    }
}

/// The copy of a body on its way to the client, for the cache: the chunks so far (given up once over `limit`), joined
/// into one exactly-sized array at the end, so a stored body holds neither the spare capacity of a growing (or
/// power-of-two) buffer nor the rest of a network read it was sliced from.
struct BodyCopy {
    let limit: Int
    private var chunks: [ByteBuffer]? = []
    private var bytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ chunk: ByteBuffer) {
        guard chunks != nil else { return }
        bytes += chunk.readableBytes
        if bytes > limit {
            chunks = nil
        } else {
            chunks!.append(chunk)
        }
    }

    /// The whole body (once), or `nil` when it went over the limit.
    mutating func take() -> [UInt8]? {
        guard let chunks else { return nil }
        self.chunks = nil
        var whole: [UInt8] = []
        whole.reserveCapacity(bytes)
        for chunk in chunks { whole.append(contentsOf: chunk.readableBytesView) }
        return whole
    }
}
