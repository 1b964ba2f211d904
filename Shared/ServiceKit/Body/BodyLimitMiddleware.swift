import Hummingbird

/// Refuses request bodies larger than the configured limit with 413 `payload-too-large`.
///
/// A declared `Content-Length` above the limit is refused before any byte is read. Chunked bodies
/// (`Transfer-Encoding`, no length) are counted while they stream, and `collect(upTo:)` and
/// `decode(as:context:)` stop at the limit through ``ServiceRequestContext/maxUploadSize``.
public struct BodyLimitMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Largest accepted body, in bytes.
    public let limit: Int

    /// Creates the middleware with a limit in bytes.
    public init(limit: Int) {
        self.limit = limit
    }

    /// Checks the declared length, arms the streaming limit and runs `next`.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.bodyLimit = limit
        if let declared = request.headers[.contentLength] {
            if let length = Int(declared), length > limit {
                throw Problem.payloadTooLarge(limitBytes: limit)
            }
            return try await next(request, context)
        }
        guard request.headers[.transferEncoding] != nil else {
            // HTTP/1.1: no Content-Length and no Transfer-Encoding means no body; leave the stream untouched.
            return try await next(request, context)
        }
        var request = request
        request.body = RequestBody(asyncSequence: ByteLimitedBody(base: request.body, limit: limit))
        return try await next(request, context)
    }
}
