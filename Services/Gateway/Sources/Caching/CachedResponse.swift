import HTTPTypes
import NIOCore

/// A stored public answer: status 200, its headers and its whole body.
public struct CachedResponse: Sendable {
    /// The upstream's headers, without hop-by-hop and per-request fields.
    public var headers: HTTPFields
    /// The whole body, in an array of exactly its size: a `ByteBuffer` rounds its capacity up to a power of two (a
    /// 10 KB answer would hold 16 KiB), so the cache's byte bound would undercount what it keeps by up to half.
    public var bytes: [UInt8]
    /// When it was stored.
    public var storedAt: ContinuousClock.Instant
    /// When it stops being served.
    public var expiresAt: ContinuousClock.Instant

    /// A stored answer.
    public init(headers: HTTPFields, bytes: [UInt8], storedAt: ContinuousClock.Instant, expiresAt: ContinuousClock.Instant) {
        self.headers = headers
        self.bytes = bytes
        self.storedAt = storedAt
        self.expiresAt = expiresAt
    }

    /// A stored answer with the readable bytes of `body`.
    public init(headers: HTTPFields, body: ByteBuffer, storedAt: ContinuousClock.Instant, expiresAt: ContinuousClock.Instant) {
        self.init(headers: headers, bytes: Array(body.readableBytesView), storedAt: storedAt, expiresAt: expiresAt)
    }

    /// The body as a buffer to send (a copy: the stored bytes stay exactly sized).
    public var body: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Bytes it occupies, roughly: the body plus its header text.
    var size: Int { bytes.count + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count } }
}
