import HTTPTypes
import Hummingbird

/// A domain error that knows the RFC 9457 problem it answers with.
///
/// Modelled on Hummingbird's `HTTPResponseError`, which it refines: conform a service's error type once, throw its
/// cases from commands and handlers, and ``ProblemMiddleware`` writes ``problem`` — route code converts nothing.
///
/// ```swift
/// enum TourError: Error, ProblemConvertible {
///     case notFound
///     var problem: Problem { .notFound("no such tour", code: "unknown-tour") }
/// }
/// ```
public protocol ProblemConvertible: HTTPResponseError {
    /// The problem document this error is answered with (status, code, title, detail, field errors, headers).
    var problem: Problem { get }
}

extension ProblemConvertible {
    /// The status of ``problem``.
    public var status: HTTPResponse.Status { problem.status }

    /// Writes ``problem`` as `application/problem+json`, also where no ``ProblemMiddleware`` runs.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try problem.response(from: request, context: context)
    }
}

extension Problem: ProblemConvertible {
    /// The problem itself.
    public var problem: Problem { self }
}
