import Hummingbird
import NIOCore

/// A request body stream that fails with 413 once more than `limit` bytes have arrived.
///
/// Guards bodies without `Content-Length` (chunked uploads) for handlers that read the stream
/// themselves rather than through `collect(upTo:)`.
struct ByteLimitedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        var received = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            received += chunk.readableBytes
            if received > limit {
                throw Problem.payloadTooLarge(limitBytes: limit)
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}
