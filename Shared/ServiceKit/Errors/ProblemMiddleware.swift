import Hummingbird
import Logging

/// Turns every error thrown below it into an `application/problem+json` response.
///
/// ``Problem`` and every ``ProblemConvertible`` domain error are written as their problem; Hummingbird's `HTTPError`
/// keeps its status; a `DecodingError` becomes a 400 or 422 (see ``Problem/init(decodingError:bodyIsWellFormed:)``);
/// anything else is a 500 `internal` whose cause is logged with the request id and never sent to the client. A
/// `CancellationError` (shutdown cancelled the handler) is a 503 with `Retry-After`, logged at notice.
public struct ProblemMiddleware: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Creates the middleware.
    public init() {}

    /// Runs `next` and converts a thrown error into a problem response.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is CancellationError {
            // The server is shutting down (or the task was cancelled while, say, a long poll waited): not a fault of
            // the service, so a 503 the client may retry, logged at notice rather than as an error.
            let problem = Problem.serviceUnavailable("The service is shutting down; retry.", retryAfter: .seconds(1))
            context.logger.notice("request cancelled", metadata: ["http_method": .string(request.method.rawValue),
                                                                  "http_path": .string(request.uri.path)])
            return try problem.response(from: request, context: context)
        } catch {
            let problem = Problem.mapping(error, bodyLimit: context.maxUploadSize)
            log(error, as: problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        }
    }

    private func log(_ error: any Error, as problem: Problem, request: Request, context: Context) {
        let metadata: Logger.Metadata = [
            "http_method": .string(request.method.rawValue),
            "http_path": .string(request.uri.path),
            "problem_code": .string(problem.code),
            "status": .stringConvertible(problem.status.code),
        ]
        if problem.status.kind == .serverError {
            var metadata = metadata
            metadata["error"] = .string(String(reflecting: error))
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.debug("request rejected", metadata: metadata)
        }
    }
}
