import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser refused with a problem document instead of Hummingbird's bare `400` without a
/// body: `431 headers-too-large` when the head is larger than the decoder's limits (80 KiB of header fields, 1,000
/// fields), `400 malformed-request` for any other syntax error, with `Connection: close` (the stream cannot be trusted
/// any more).
///
/// It does not answer by itself: the parser's error goes on to Hummingbird's request loop, which takes it after the
/// answers to the requests before it are written and then writes its bare `400` (`Connection: close`,
/// `Content-Length: 0`) and closes; this handler only rewrites that head into the problem's, with its body. So two
/// answers never interleave, and a request before the refused bytes still gets its own answer first. Until the parser
/// refuses something the handler passes every part on untouched: it looks at no request and no answer.
///
/// Sits after the HTTP/1 codec (``HTTPServerBuilder/http1OnEventLoops(configuration:)`` installs it).
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the parser refused, once it did.
    private var refusal: HTTPParserError?
    /// Whether Hummingbird's answer to the refusal was rewritten (once per connection; the connection then closes).
    private var rewritten = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if refusal == nil, let parserError = error as? HTTPParserError { refusal = parserError }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let refusal else {
            context.write(data, promise: promise)
            return
        }
        if rewritten {
            // The end of the rewritten answer: closed once it is written, as the parser's state cannot be trusted
            // (Hummingbird would only close its output and wait for the client to close).
            guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        // Hummingbird's answer to a parse error: 400, `Content-Length: 0`, `Connection: close`. An answer to an
        // earlier request that is still being written (a service's 400 always has a body) passes unchanged.
        guard case .head(let head) = unwrapOutboundIn(data), head.status == .badRequest, head.headerFields[.contentLength] == "0",
              head.headerFields[.connection] == "close" else {
            context.write(data, promise: promise)
            return
        }
        rewritten = true
        let (status, code, title, detail) = Self.problem(for: refusal)
        let body = #"{"type":"urn:waypoint:problem:\#(code)","title":"\#(title)","status":\#(status.code),"code":"\#(code)","detail":"\#(detail)"}"#
        var fields = HTTPFields()
        fields[.contentType] = "application/problem+json"
        fields[.contentLength] = String(body.utf8.count)
        fields[.connection] = "close"
        fields[ServiceHeaders.contentTypeOptions] = "nosniff"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: promise)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
    }

    static func problem(for error: HTTPParserError) -> (HTTPResponse.Status, String, String, String) {
        switch error {
        case .headerOverflow:
            (.init(code: 431, reasonPhrase: "Request Header Fields Too Large"), "headers-too-large", "Request header fields too large",
             "The request's header fields are larger than the server accepts (80 KiB in all, 1,000 fields).")
        default:
            (.badRequest, "malformed-request", "Malformed request", "The request is not valid HTTP/1.1.")
        }
    }
}
