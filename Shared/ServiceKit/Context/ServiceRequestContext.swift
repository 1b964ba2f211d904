import HTTPTypes
import Hummingbird
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request context of every Waypoint service.
///
/// ServiceKit's middlewares fill it in before a handler runs: ``requestId`` and ``trace`` (with matching
/// `request_id`, `trace_id` and `span_id` metadata on ``logger``), the body limit, and ``identity`` on
/// authenticated routes.
public struct ServiceRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, route parameters, endpoint path).
    public var coreContext: CoreRequestContextStorage
    /// The request id: the caller's `X-Request-Id` when well-formed, otherwise generated.
    public internal(set) var requestId: String
    /// W3C trace context of this request; pass ``TraceContext/traceparent`` on to events and calls.
    public internal(set) var trace: TraceContext
    /// The verified caller, on routes behind ``AuthenticationMiddleware``; `nil` elsewhere.
    public internal(set) var identity: AuthenticatedIdentity?
    /// Largest accepted body in bytes, set from ``ServiceConfiguration/maxBodyBytes``.
    public internal(set) var bodyLimit: Int
    /// The peer's IP address (the gateway's, behind it: see ``clientAddress(_:)``).
    public let remoteAddress: String?

    /// Creates a context for a request accepted by the server.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
        self.requestId = RequestIdentifier.generate()
        self.trace = .newTrace()
        self.identity = nil
        self.bodyLimit = ServiceConfiguration.defaultMaxBodyBytes
    }

    /// The client's address: the first `X-Forwarded-For` entry (set by the gateway) or the peer's address.
    public func clientAddress(_ request: Request) -> String? {
        if let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").first {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        return remoteAddress
    }

    /// Largest body that decoding collects, in bytes: ``bodyLimit``.
    public var maxUploadSize: Int { bodyLimit }

    /// Decodes JSON bodies into problems on failure and validates ``ValidatableRequest`` values.
    public var requestDecoder: ServiceRequestDecoder { ServiceRequestDecoder() }

    /// Encodes JSON bodies with RFC 3339 UTC timestamps.
    public var responseEncoder: JSONEncoder { ServiceJSON.makeEncoder() }

    /// The `traceparent` of this request's span, for event metadata and Kafka headers.
    public var traceparent: String { trace.traceparent }
}
