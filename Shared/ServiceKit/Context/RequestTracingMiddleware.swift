import HTTPTypes
import Hummingbird
import Logging

/// Gives every request its id and trace context and echoes both in the response.
///
/// Reads `X-Request-Id` and `traceparent`, stores the accepted or generated values in the context,
/// adds `request_id`, `trace_id` and `span_id` to the request logger, and writes `X-Request-Id` and
/// `traceparent` (this request's span) on every response, error responses included, with
/// `X-Content-Type-Options: nosniff`.
public struct RequestTracingMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Creates the middleware.
    public init() {}

    /// Identifies the request, runs `next` and stamps the response.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.requestId = RequestIdentifier.accepting(request.headers[ServiceHeaders.requestID])
        context.trace = TraceContext.continuing(request.headers[ServiceHeaders.traceparent])
        context.logger[metadataKey: "request_id"] = .string(context.requestId)
        context.logger[metadataKey: "trace_id"] = .string(context.trace.traceId)
        context.logger[metadataKey: "span_id"] = .string(context.trace.spanId)
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.stamp(&response.headers, requestId: context.requestId, trace: context.trace)
        return response
    }

    /// Writes `X-Request-Id`, `traceparent` (this request's span) and `X-Content-Type-Options: nosniff` into an answer's
    /// fields — what every answer carries, also one written outside the router (the gateway's proxy fast path).
    public static func stamp(_ headers: inout HTTPFields, requestId: String, trace: TraceContext) {
        headers[ServiceHeaders.requestID] = requestId
        headers[ServiceHeaders.traceparent] = trace.traceparent
        headers[ServiceHeaders.contentTypeOptions] = "nosniff"
    }
}
