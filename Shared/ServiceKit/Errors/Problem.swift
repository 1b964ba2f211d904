import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one error type of Waypoint's HTTP APIs, written as RFC 9457 `application/problem+json`.
///
/// Throw it from a handler (`throw Problem.notFound("No tour \(id)")`); ``ProblemMiddleware`` turns
/// every other error into one too. `instance` and `requestId` are filled in from the request when the
/// response is written.
public struct Problem: Error, HTTPResponseError, Sendable, Equatable {
    /// The media type of problem bodies.
    public static let mediaType = "application/problem+json"

    /// HTTP status of the response.
    public var status: HTTPResponse.Status
    /// Stable machine code, e.g. `malformed-json`; clients branch on it.
    public var code: String
    /// Short summary that is the same for every occurrence of `code`.
    public var title: String
    /// Explanation of this occurrence. Never contains internals (SQL, stack traces, file paths).
    public var detail: String
    /// The invalid fields, for `422 invalid-field`.
    public var fieldErrors: [FieldError]
    /// Path of the request; `nil` means "the request path" when written.
    public var instance: String?
    /// Request id; `nil` means "the request id of the context" when written.
    public var requestId: String?
    /// Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`.
    public var headers: HTTPFields

    /// Creates a problem.
    public init(
        status: HTTPResponse.Status,
        code: String,
        title: String,
        detail: String,
        fieldErrors: [FieldError] = [],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.fieldErrors = fieldErrors
        self.instance = nil
        self.requestId = nil
        self.headers = headers
    }

    /// The RFC 9457 `type` URI: `urn:waypoint:problem:<code>`.
    public var type: String { "urn:waypoint:problem:\(code)" }

    /// The wire document for a request to `path` with request id `requestId`.
    public func document(instance path: String?, requestId fallbackRequestId: String?) -> ProblemDocument {
        ProblemDocument(
            type: type,
            title: title,
            status: Int(status.code),
            detail: detail,
            instance: instance ?? path,
            code: code,
            requestId: requestId ?? fallbackRequestId,
            fieldErrors: fieldErrors.isEmpty ? nil : fieldErrors
        )
    }

    /// Writes the problem as `application/problem+json`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let contextRequestId = (context as? ServiceRequestContext)?.requestId
        let (headers, body) = try rendered(instance: request.uri.path, requestId: contextRequestId)
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The answer's fields (``headers``, `Content-Type`, `Content-Length`) and body for a request to `path` with
    /// request id `requestId`: what ``response(from:context:)`` writes, for answers written outside the router.
    public func rendered(instance path: String?, requestId: String?) throws -> (headers: HTTPFields, body: ByteBuffer) {
        let data = try Self.encoder.encode(document(instance: path, requestId: requestId))
        var headers = self.headers
        headers[.contentType] = Self.mediaType
        headers[.contentLength] = String(data.count)
        return (headers, ByteBuffer(bytes: data))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension Problem: CustomStringConvertible {
    /// `404 not-found: No tour 42` — for logs.
    public var description: String { "\(status.code) \(code): \(detail)" }
}
