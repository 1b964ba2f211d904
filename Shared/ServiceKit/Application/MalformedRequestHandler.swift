import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser refused with a problem document instead of Hummingbird's bare `400` without a
/// body: `431 headers-too-large` when the head is larger than the decoder's limits (80 KiB of header fields, 1,000
/// fields), `400 malformed-request` for any other syntax error. The connection is closed after the answer (the stream
/// cannot be trusted any more). When an answer to an earlier request on the connection is still being written, the
/// connection is only closed: two answers must not interleave.
///
/// Sits after the HTTP/1 codec (``HTTPServerBuilder/http1OnEventLoops(configuration:)`` installs it).
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose answer has not been finished.
    private var unanswered = 0
    private var answeredError = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answeredError else { return }
        answeredError = true
        guard unanswered == 0 else {
            context.close(promise: nil)
            return
        }
        let (status, code, title, detail) = Self.problem(for: parserError)
        let body = #"{"type":"urn:waypoint:problem:\#(code)","title":"\#(title)","status":\#(status.code),"code":"\#(code)","detail":"\#(detail)"}"#
        var fields = HTTPFields()
        fields[.contentType] = "application/problem+json"
        fields[.contentLength] = String(body.utf8.count)
        fields[.connection] = "close"
        fields[ServiceHeaders.contentTypeOptions] = "nosniff"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
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
