import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// What an echo stand-in saw of one request.
struct Echo: Codable, Sendable {
    var service: String
    var method: String
    var path: String
    var query: String?
    var headers: [String: String]
    var bodyBytes: Int
}

/// Counts the requests a stand-in received.
final class Hits: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

extension StandIn {
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options]

    /// Answers every request with an ``Echo`` of it as JSON, after reading the whole body.
    static func echo(_ service: String, hits: Hits = Hits(), extraHeaders: HTTPFields = [:]) -> StandIn {
        StandIn {
            let router = Router()
            for method in methods {
                for path in ["/", "**"] {
                    router.on(RouterPath(path), method: method) { request, _ in
                        hits.add()
                        var bytes = 0
                        for try await chunk in request.body { bytes += chunk.readableBytes }
                        var headers: [String: String] = [:]
                        for field in request.headers { headers[field.name.canonicalName, default: ""] += (headers[field.name.canonicalName] == nil ? "" : ", ") + field.value }
                        let echo = Echo(service: service, method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
                                        headers: headers, bodyBytes: bytes)
                        var responseHeaders = extraHeaders
                        responseHeaders[.contentType] = "application/json"
                        return Response(status: .ok, headers: responseHeaders,
                                        body: .init(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(echo))))
                    }
                }
            }
            return router
        }
    }

    /// Answers every request with `handler`.
    static func custom(_ handler: @escaping @Sendable (Request) async throws -> Response) -> StandIn {
        StandIn {
            let router = Router()
            for method in methods {
                router.on("**", method: method) { request, _ in try await handler(request) }
            }
            return router
        }
    }
}
