import AsyncHTTPClient
import HTTPTypes
import NIOCore

/// An upstream answer's body on its way to the client: still streaming from the upstream connection, or — for a small
/// answer of declared length — already read whole when the head is passed on (by ``UpstreamConnection`` for plain-HTTP
/// upstreams, by ``of(_:readWhole:)`` for AsyncHTTPClient's `https` ones).
///
/// A small answer read whole is written to the client with its head in one write (Hummingbird writes a body of one
/// buffer together with the head and the end: one `writev` instead of three, and no task iterating the stream), which
/// is what nginx's proxy buffering does. Larger answers, answers without `Content-Length` (streams) and answers to
/// requests with a body stream through as before. What the client sees is the same: an upstream that breaks off in the
/// middle of a small body gives the client the head and the part that came, then the cut (``broken(_:_:)``).
enum UpstreamBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Answers declaring at most this many bytes are read whole before the head is passed on.
    static let bufferedLimit = 64 << 10

    /// Passed through as it arrives, from the gateway's own upstream connection (``UpstreamConnection``).
    case pooled(UpstreamBodyStream)
    /// Passed through as it arrives, from AsyncHTTPClient (`https` upstreams).
    case streaming(HTTPClientResponse.Body)
    /// The whole body.
    case buffered(ByteBuffer)
    /// The part that came before the upstream broke off, then its error.
    case broken(ByteBuffer, any Error)

    /// The body of `response`: read whole when it declares a length of at most ``bufferedLimit`` and `readWhole`,
    /// streaming otherwise.
    static func of(_ response: HTTPClientResponse, readWhole: Bool) async -> UpstreamBody {
        guard readWhole, let declared = response.headers.first(name: "content-length").flatMap(Int.init),
              declared >= 0, declared <= bufferedLimit
        else { return .streaming(response.body) }
        // Read to the end of the stream (an iterator dropped before it would cancel the call and close the
        // connection); one chunk — the usual case — is kept as it is, more are joined.
        var first: ByteBuffer?, whole: ByteBuffer?
        do {
            for try await chunk in response.body {
                if first == nil, whole == nil {
                    first = chunk
                } else {
                    if whole == nil {
                        whole = first
                        first = nil
                    }
                    whole!.writeImmutableBuffer(chunk)
                }
            }
        } catch {
            return .broken(whole ?? first ?? ByteBuffer(), error)
        }
        return .buffered(whole ?? first ?? ByteBuffer())
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var pooled: UpstreamBodyStream.AsyncIterator?
        var streaming: HTTPClientResponse.Body.AsyncIterator?
        var pending: ByteBuffer?
        var error: (any Error)?

        mutating func next() async throws -> ByteBuffer? {
            if let buffer = pending {
                pending = nil
                if buffer.readableBytes > 0 { return buffer }
            }
            if let error {
                self.error = nil
                throw error
            }
            if pooled != nil { return try await pooled!.next() }
            return try await streaming?.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        switch self {
        case .pooled(let body): AsyncIterator(pooled: body.makeAsyncIterator())
        case .streaming(let body): AsyncIterator(streaming: body.makeAsyncIterator())
        case .buffered(let buffer): AsyncIterator(pending: buffer)
        case .broken(let buffer, let error): AsyncIterator(pending: buffer, error: error)
        }
    }
}
