import Foundation
import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import NIOHTTP1
import ServiceKit

/// Which headers cross the gateway, in each direction.
enum ForwardedHeaders {
    /// Hop-by-hop fields (RFC 9110 §7.6.1) and the framing fields the gateway sets itself.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length", "expect",
    ]

    /// Fields describing the client that only the gateway, as the edge, may set: whatever a client sends is replaced.
    static let edgeOwned: Set<String> = [
        "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip",
        ServiceHeaders.requestID.canonicalName, ServiceHeaders.traceparent.canonicalName, "tracestate",
    ]

    /// Fields never passed upstream as the client sent them: ``hopByHop`` and ``edgeOwned``.
    static let notForwarded = hopByHop.union(edgeOwned)

    /// The request fields for the upstream: the client's end-to-end fields (`Authorization`, `Range`, `If-None-Match`,
    /// `Accept`, …) plus `X-Forwarded-For`/`Forwarded` naming the client, the request id and a child span of this
    /// request's trace.
    static func upstreamRequest(_ request: Request, context: ServiceRequestContext, client: String) -> HTTPHeaders {
        upstreamRequest(fields: request.headers, authority: request.head.authority, requestId: context.requestId,
                        trace: context.trace, client: client)
    }

    /// ``upstreamRequest(_:context:client:)`` from the request's fields and `:authority` (the `Host`), the request id and
    /// the request's trace (the upstream gets a child span).
    static func upstreamRequest(fields: HTTPFields, authority host: String?, requestId: String, trace: TraceContext,
                                client: String) -> HTTPHeaders {
        let removed = fields.contains(.connection) ? notForwarded.union(connectionNamed(fields)) : notForwarded
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count + 6)
        for field in fields where !removed.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        headers.add(name: "X-Forwarded-For", value: client)
        headers.add(name: "X-Forwarded-Proto", value: "http")
        if let host { headers.add(name: "X-Forwarded-Host", value: host) }
        headers.add(name: "Forwarded", value: forwardedValue(client: client, host: host))
        headers.add(name: ServiceHeaders.requestID.rawName, value: requestId)
        headers.add(name: ServiceHeaders.traceparent.rawName, value: trace.child().traceparent)
        return headers
    }

    /// The response fields for the client: the upstream's minus hop-by-hop ones (`Content-Length` is kept: the body is
    /// passed through unchanged).
    static func clientResponse(_ upstream: HTTPHeaders) -> HTTPFields {
        var named = Set<String>()
        for value in upstream["connection"] { for token in value.split(separator: ",") { named.insert(token.trimmingCharacters(in: .whitespaces).lowercased()) } }
        var fields = HTTPFields()
        fields.reserveCapacity(upstream.count)
        for (name, value) in upstream {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let lower = fieldName.canonicalName
            guard lower == "content-length" || !(hopByHop.contains(lower) || named.contains(lower)) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return fields
    }

    /// RFC 7239 `Forwarded`: `for=192.0.2.1;host=…;proto=http`, IPv6 addresses quoted in brackets.
    static func forwardedValue(client: String, host: String?) -> String {
        // Byte tests: `String.contains(String)` goes through Foundation's string search, per request.
        let node = client.utf8.contains(UInt8(ascii: ":")) ? "\"[\(client)]\"" : client
        var value = "for=\(node)"
        if let host, !host.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: ";") }) { value += ";host=\"\(host)\"" }
        return value + ";proto=http"
    }

    /// Fields a `Connection` header names (they are hop-by-hop too).
    private static func connectionNamed(_ headers: HTTPFields) -> Set<String> {
        Set(headers[values: .connection].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}
