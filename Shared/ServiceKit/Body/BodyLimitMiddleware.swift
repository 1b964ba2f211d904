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
    /// Larger (or smaller) limits for requests whose method and path match, e.g. media uploads: the first match wins.
    public let overrides: [BodyLimitOverride]

    /// Creates the middleware with a limit in bytes and per-route exceptions.
    public init(limit: Int, overrides: [BodyLimitOverride] = []) {
        self.limit = limit
        self.overrides = overrides
    }

    /// Checks the declared length, arms the streaming limit and runs `next`.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let path = request.uri.path
        let limit = overrides.first { $0.method == request.method && path.hasPrefix($0.pathPrefix) }?.limit ?? limit
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

/// A body limit for one method and path prefix (e.g. `POST /v1/media`: 100 MiB while JSON routes keep 1 MiB).
public struct BodyLimitOverride: Sendable, Hashable {
    public var method: HTTPRequest.Method
    public var pathPrefix: String
    public var limit: Int

    public init(method: HTTPRequest.Method, pathPrefix: String, limit: Int) {
        self.method = method
        self.pathPrefix = pathPrefix
        self.limit = limit
    }
}
