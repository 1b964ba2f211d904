import HTTPTypes
import Hummingbird
import NIOCore

/// How any thrown error becomes a problem; used by ``ProblemMiddleware``.
extension Problem {
    /// The problem to answer with when a handler throws `error`.
    ///
    /// - Parameter bodyLimit: The body limit in bytes, quoted by a 413 raised by NIO's `collect(upTo:)`.
    /// - Returns: The problem; a 500 `internal` for anything unexpected, with no detail of the cause.
    public static func mapping(_ error: any Error, bodyLimit: Int) -> Problem {
        switch error {
        case let convertible as any ProblemConvertible:
            return convertible.problem
        case let decodingError as DecodingError:
            return Problem(decodingError: decodingError, bodyIsWellFormed: nil)
        case is NIOTooManyBytesError:
            return .payloadTooLarge(limitBytes: bodyLimit)
        case let httpError as HTTPError:
            var problem = Problem(status: httpError.status, detail: httpError.body)
            problem.headers.append(contentsOf: httpError.headers)
            return problem
        case let responseError as any HTTPResponseError:
            return Problem(status: responseError.status, detail: nil)
        default:
            return .internalError()
        }
    }

    /// A problem for a bare HTTP status, e.g. from Hummingbird's `HTTPError(.notFound)`.
    ///
    /// Client errors keep `detail` (Hummingbird's and our own messages are safe to show); server
    /// errors never do, because their text may carry internals.
    init(status: HTTPResponse.Status, detail: String?) {
        guard status.kind != .serverError else {
            self = status == .serviceUnavailable ? .serviceUnavailable() : .internalError()
            return
        }
        let (code, title) = Self.codeAndTitle(for: status)
        self.init(status: status, code: code, title: title, detail: detail ?? "\(status.code) \(status.reasonPhrase).")
    }

    /// The stable code and title for a status without a more specific problem.
    static func codeAndTitle(for status: HTTPResponse.Status) -> (code: String, title: String) {
        switch status {
        case .badRequest: ("bad-request", "Bad request")
        case .unauthorized: ("unauthenticated", "Unauthenticated")
        case .forbidden: ("forbidden", "Forbidden")
        case .notFound: ("not-found", "Not found")
        case .methodNotAllowed: ("method-not-allowed", "Method not allowed")
        case .conflict: ("conflict", "Conflict")
        case .contentTooLarge: ("payload-too-large", "Payload too large")
        case .unsupportedMediaType: ("unsupported-media-type", "Unsupported media type")
        case .unprocessableContent: ("invalid-field", "Invalid fields")
        case .tooManyRequests: ("rate-limited", "Too many requests")
        case .serviceUnavailable: ("service-unavailable", "Service unavailable")
        default:
            status.kind == .serverError
                ? ("internal", "Internal error")
                : ("http-\(status.code)", status.reasonPhrase)
        }
    }
}
