import HTTPTypes
import NIOCore

/// A stored public answer: status 200, its headers and its whole body.
public struct CachedResponse: Sendable {
    /// The upstream's headers, without hop-by-hop and per-request fields.
    public var headers: HTTPFields
    /// The whole body.
    public var body: ByteBuffer
    /// When it was stored.
    public var storedAt: ContinuousClock.Instant
    /// When it stops being served.
    public var expiresAt: ContinuousClock.Instant

    /// A stored answer.
    public init(headers: HTTPFields, body: ByteBuffer, storedAt: ContinuousClock.Instant, expiresAt: ContinuousClock.Instant) {
        self.headers = headers
        self.body = body
        self.storedAt = storedAt
        self.expiresAt = expiresAt
    }

    /// Bytes it occupies, roughly: the body plus its header text.
    var size: Int { body.readableBytes + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count } }
}
