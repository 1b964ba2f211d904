import AsyncHTTPClient
import NIOCore
import NIOPosix
import ServiceKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a call to an upstream produced no answer, and the problem the client gets for it.
enum UpstreamFailure: Error, Equatable {
    /// Nothing listens (connection refused): 503, and safe to retry — the request never left.
    case refused
    /// No answer within the upstream's timeout (connect or read): 504.
    case timedOut
    /// The connection broke or the answer was not valid HTTP: 502.
    case badGateway

    /// Classifies an error of the gateway's upstream client, AsyncHTTPClient or NIO.
    init(_ error: any Error) {
        if let error = error as? UpstreamClientError {
            switch error {
            case .readTimeout, .poolTimeout: self = .timedOut
            case .closedBeforeAnswer, .invalidAnswer, .shutDown, .requestBodyIncomplete: self = .badGateway
            }
        } else if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .connectTimeout, .deadlineExceeded: self = .timedOut
            default: self = .badGateway
            }
        } else if let error = error as? NIOConnectionError {
            let causes = error.connectionErrors.map(\.error) + [error.dnsAError, error.dnsAAAAError].compactMap { $0 }
            self = causes.contains { UpstreamFailure($0) == .timedOut } ? .timedOut : .refused
        } else if let error = error as? IOError {
            self = error.errnoCode == ECONNREFUSED ? .refused : .badGateway
        } else if let error = error as? ChannelError, case .connectTimeout = error {
            self = .timedOut
        } else {
            self = .badGateway
        }
    }

    /// The failure's name in metrics and logs.
    var label: String {
        switch self {
        case .refused: "refused"
        case .timedOut: "timeout"
        case .badGateway: "bad-gateway"
        }
    }

    /// The problem+json answer for `upstream`.
    func problem(upstream: String) -> Problem {
        switch self {
        case .refused:
            Problem.serviceUnavailable("The \(upstream) service is not available right now.", retryAfter: .seconds(1))
        case .timedOut:
            Problem(status: .gatewayTimeout, code: "upstream-timeout", title: "Gateway timeout",
                    detail: "The \(upstream) service did not answer in time.")
        case .badGateway:
            Problem(status: .badGateway, code: "bad-gateway", title: "Bad gateway",
                    detail: "The \(upstream) service gave no valid answer.")
        }
    }
}
