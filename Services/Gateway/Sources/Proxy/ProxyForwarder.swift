import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import ServiceKit
import Synchronization

/// Forwards one request to its upstream and streams the answer back: neither body is ever collected whole.
///
/// Bodiless idempotent requests (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`) are retried once on a refused connection or
/// a 503, if the upstream's ``RetryBudget`` allows; a request with a body is not, because its stream cannot be replayed.
/// Every attempt asks the upstream's ``CircuitBreaker`` first and reports its outcome to it.
struct ProxyForwarder: Sendable {
    let upstreams: UpstreamPool
    /// Who the client is (the `X-Forwarded-For`/`Forwarded` sent upstream).
    let clients: ClientAddressResolver
    /// Where `gateway_upstream_failures_total{upstream,kind}` and `gateway_upstream_retries_total{upstream}` go.
    let metrics: any MetricsFactory
    /// Counts this gateway's request-body relays still reading.
    var relays = RelayGauge()
    /// Pause before the retry, so a restarting service gets a moment.
    var retryDelay: Duration = .milliseconds(50)

    static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options]

    /// Whether a request may be sent again (after a refused connection or a 503, on a fresh connection when a kept-alive
    /// one was closed): idempotent and without a body.
    static func isReplayable(_ method: HTTPRequest.Method, hasBody: Bool) -> Bool {
        idempotentMethods.contains(method) && !hasBody
    }

    /// The upstream's answer to `request` (head received, body still streaming), or a thrown ``Problem`` (502, 503, 504).
    func forward(_ request: Request, context: ServiceRequestContext, upstream name: String) async throws -> UpstreamAnswer {
        guard let upstream = upstreams.pick(name) else {
            throw Problem.serviceUnavailable("The \(name) service is not available.", retryAfter: .seconds(5))
        }
        upstream.retryBudget.deposit()
        let bodyFailure = BodyFailure()
        let relay = Self.hasBody(request) ? RequestBodyRelay(body: request.body, failure: bodyFailure, gauge: relays) : nil
        let replayable = Self.isReplayable(request.method, hasBody: relay != nil)
        let outgoing: Outgoing = if let connections = upstream.connections {
            .pooled(connections, makeUpstreamRequest(request, context: context, target: connections.target, relay: relay,
                                                     replayable: replayable))
        } else {
            .client(makeRequest(request, context: context, upstream: upstream, relay: relay))
        }
        var attempt = 1
        do {
            while true {
                let outcome = try await call(outgoing, upstream: upstream, context: context, bodyFailure: bodyFailure,
                                             readSmallBodyWhole: relay == nil && request.method != .head)
                if outcome.isRetryable, replayable, allowsRetry(after: attempt, upstream: upstream) {
                    attempt += 1
                    try await Task.sleep(for: retryDelay)
                    continue
                }
                switch outcome {
                case .answered(var answer):
                    answer.relay = relay
                    return answer
                case .failed(let problem, _): throw problem
                }
            }
        } catch {
            // No answer to stream: the relay ends here, before the problem is written and the server reads on.
            await relay?.finish()
            throw error
        }
    }

    /// What one call to an upstream gave.
    enum Outcome {
        /// An answer (any status); a 503 may be retried.
        case answered(UpstreamAnswer)
        /// No answer; a refused connection may be retried (the request never left).
        case failed(Problem, retryable: Bool)

        var isRetryable: Bool {
            switch self {
            case .answered(let answer): answer.status == .serviceUnavailable
            case .failed(_, let retryable): retryable
            }
        }
    }

    /// The request as the upstream's client takes it.
    enum Outgoing {
        /// The gateway's own connection pools (plain-HTTP upstreams).
        case pooled(UpstreamConnections, UpstreamRequest)
        /// AsyncHTTPClient (`https` upstreams).
        case client(HTTPClientRequest)
    }

    /// One call, under the upstream's circuit breaker.
    /// `readSmallBodyWhole`: a small answer of declared length is read whole before it is returned (``UpstreamBody``).
    private func call(_ outgoing: Outgoing, upstream: Upstream, context: ServiceRequestContext,
                      bodyFailure: BodyFailure, readSmallBodyWhole: Bool) async throws -> Outcome {
        let permission = upstream.breaker.acquire()
        if case .refused(let retryAfter) = permission {
            return .failed(Self.circuitOpen(upstream, retryAfter: retryAfter), retryable: false)
        }
        do {
            let answer: UpstreamAnswer
            switch outgoing {
            case .pooled(let connections, let request):
                let response = try await connections.execute(request)
                answer = UpstreamAnswer(
                    status: HTTPResponse.Status(code: Int(response.head.status.code), reasonPhrase: response.head.status.reasonPhrase),
                    headers: ForwardedHeaders.clientResponse(response.head.headers),
                    body: response.body)
            case .client(let request):
                let response = try await upstream.client.execute(request, deadline: .now() + .hours(1), logger: context.logger)
                answer = UpstreamAnswer(
                    status: HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
                    headers: ForwardedHeaders.clientResponse(response.headers),
                    body: await UpstreamBody.of(response, readWhole: readSmallBodyWhole))
            }
            answered(status: answer.status, upstream: upstream, permission: permission)
            return .answered(answer)
        } catch {
            if let problem = bodyFailure.problem {
                // The client's body broke the limit mid-stream (413) or the client broke the upload off: the upstream
                // call was aborted by this side, which says nothing about the upstream's health.
                upstream.breaker.release(permission)
                return .failed(problem, retryable: false)
            }
            let (problem, retryable) = failed(error, upstream: upstream, permission: permission, logger: context.logger)
            return .failed(problem, retryable: retryable)
        }
    }

    /// The answer when the upstream's circuit is open.
    static func circuitOpen(_ upstream: Upstream, retryAfter: Duration) -> Problem {
        .serviceUnavailable("The \(upstream.name) service is failing; the gateway stopped calling it for a while (circuit open).",
                            retryAfter: retryAfter)
    }

    /// An upstream answered with `status`: the breaker hears of it (502–504 count as failures, also in
    /// `gateway_upstream_failures_total{kind="status-…"}`).
    func answered(status: HTTPResponse.Status, upstream: Upstream, permission: CircuitBreaker.Permission) {
        let failed = (502...504).contains(status.code)
        upstream.breaker.record(success: !failed, permission: permission)
        if failed { count("gateway_upstream_failures_total", upstream: upstream.name, kind: "status-\(status.code)") }
    }

    /// An upstream call gave no answer: the breaker and the failure counter hear of it, the failure is logged, and the
    /// client gets the problem (502, 503, 504); `retryable` when the request never left (a refused connection).
    func failed(_ error: any Error, upstream: Upstream, permission: CircuitBreaker.Permission,
                logger: Logger) -> (problem: Problem, retryable: Bool) {
        let failure = UpstreamFailure(error)
        upstream.breaker.record(success: false, permission: permission)
        count("gateway_upstream_failures_total", upstream: upstream.name, kind: failure.label)
        logger.notice("upstream call failed", metadata: [
            "upstream": .string(upstream.name), "failure": .string(failure.label), "error": .string(String(describing: error)),
        ])
        return (failure.problem(upstream: upstream.name), failure == .refused)
    }

    /// Whether a replayable request that failed on `attempt` is sent once more: only after the first attempt, and
    /// when the upstream's retry budget has a retry left (taken, and counted in `gateway_upstream_retries_total`).
    func allowsRetry(after attempt: Int, upstream: Upstream) -> Bool {
        guard attempt == 1, upstream.retryBudget.withdraw() else { return false }
        count("gateway_upstream_retries_total", upstream: upstream.name)
        return true
    }

    private func count(_ name: String, upstream: String, kind: String? = nil) {
        var dimensions = [("upstream", upstream)]
        if let kind { dimensions.append(("kind", kind)) }
        Counter(label: name, dimensions: dimensions, factory: metrics).increment()
    }

    /// The request's path and query as sent upstream: the request target as the client wrote it (origin form), else
    /// the parsed path and query.
    static func pathAndQuery(_ uri: URI) -> String {
        uri.string.hasPrefix("/") ? uri.string : uri.path + (uri.query.map { "?\($0)" } ?? "")
    }

    /// The request to send: same method, path and query on the upstream's base URL, filtered headers, streamed body.
    func makeRequest(_ request: Request, context: ServiceRequestContext, upstream: Upstream, relay: RequestBodyRelay?) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: upstream.baseURL + Self.pathAndQuery(request.uri))
        outgoing.method = .init(rawValue: request.method.rawValue)
        outgoing.headers = ForwardedHeaders.upstreamRequest(request, context: context, client: clients.client(of: request, context: context))
        if let relay {
            let length = request.headers[.contentLength].flatMap(Int64.init)
            outgoing.body = .stream(relay.upstreamBody, length: length.map { .known($0) } ?? .unknown)
        }
        return outgoing
    }

    /// The request for the gateway's own upstream client: same method, path and query (after the base URL's path),
    /// filtered headers, `Host` and the framing fields AsyncHTTPClient set (`Content-Length` of a body of known length,
    /// else `Transfer-Encoding: chunked`; `Content-Length: 0` for a bodiless method that defines a body), the body
    /// through `relay`.
    func makeUpstreamRequest(_ request: Request, context: ServiceRequestContext, target: UpstreamTarget,
                             relay: RequestBodyRelay?, replayable: Bool) -> UpstreamRequest {
        let path = Self.pathAndQuery(request.uri)
        var headers = ForwardedHeaders.upstreamRequest(request, context: context, client: clients.client(of: request, context: context))
        headers.add(name: "Host", value: target.hostHeader)
        let method = HTTPMethod(rawValue: request.method.rawValue)
        var length: Int?
        if let relay {
            length = request.headers[.contentLength].flatMap(Int.init)
            if let length {
                headers.add(name: "Content-Length", value: String(length))
            } else {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            }
            return UpstreamRequest(
                head: HTTPRequestHead(version: .http1_1, method: method, uri: target.pathPrefix + path, headers: headers),
                body: relay.upstreamBody, uploadCut: { [weak relay] in relay?.isFinishing ?? true }, contentLength: length,
                readSmallBodyWhole: false, replayable: false)
        }
        return Self.bodilessRequest(method: method, target: target.pathPrefix + path, headers: headers,
                                    readSmallBodyWhole: request.method != .head, replayable: replayable)
    }

    /// A request without a body for the gateway's own upstream client: `Content-Length: 0` for a method that defines a
    /// body (what AsyncHTTPClient sent), nothing for the others.
    static func bodilessRequest(method: HTTPMethod, target: String, headers: HTTPHeaders, readSmallBodyWhole: Bool,
                                replayable: Bool) -> UpstreamRequest {
        var headers = headers
        switch method {
        case .GET, .HEAD, .DELETE, .CONNECT, .TRACE: break
        default: headers.add(name: "Content-Length", value: "0")
        }
        return UpstreamRequest(
            head: HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers),
            body: nil, contentLength: nil, readSmallBodyWhole: readSmallBodyWhole, replayable: replayable)
    }

    /// A request whose body the gateway holds whole (the fast path's small bodies), framed as the relay's of a declared
    /// length: `Content-Length`, the body written with the head. Never replayable (it has a body).
    static func wholeBodyRequest(method: HTTPMethod, target: String, headers: HTTPHeaders, body: ByteBuffer) -> UpstreamRequest {
        var headers = headers
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        return UpstreamRequest(
            head: HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers),
            body: nil, wholeBody: body, contentLength: body.readableBytes, readSmallBodyWhole: false, replayable: false)
    }

    /// Whether the request carries a body (HTTP/1.1: a non-zero `Content-Length` or any `Transfer-Encoding`).
    static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength] { return length != "0" }
        return request.headers[.transferEncoding] != nil
    }
}

/// An upstream's answer whose body is still arriving.
struct UpstreamAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: UpstreamBody
    /// The relay of the client's request body, finished once the answer has been written (``ResponseBody/relaying(_:finishing:)``).
    var relay: RequestBodyRelay? = nil

    /// The answer passed through to the client: streaming, or a small body read whole written with its head at once.
    var response: Response {
        if relay == nil, case .buffered(let buffer) = body {
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }
        return Response(status: status, headers: headers, body: .relaying(body, finishing: relay))
    }
}

/// The ``Problem`` a client's body stream failed with (413 from the body limit, 400 `incomplete-body` when the client
/// broke the upload off), kept for the answer: the HTTP client reports only that the upload was aborted.
final class BodyFailure: Sendable {
    private let stored = Mutex<Problem?>(nil)
    var problem: Problem? { stored.withLock { $0 } }
    func record(_ problem: Problem) { stored.withLock { $0 = problem } }
}
