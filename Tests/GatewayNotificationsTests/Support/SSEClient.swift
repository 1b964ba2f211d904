import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// One Server-Sent Events message (or comment) as a client parses it.
struct SSEMessage: Sendable, Hashable {
    var id: String?
    var event: String?
    var data: String?
    var retry: String?
    var comment: String?
}

/// A real SSE client over a loopback HTTP connection: it reads the response body as it streams and keeps every parsed
/// message; ``close()`` drops the connection.
final class SSEClient: Sendable {
    let status: Int
    let contentType: String?
    let cacheControl: String?
    private let reader: Task<Void, Never>
    private let state = Received()

    /// What the reader task has parsed so far.
    private final class Received: Sendable {
        private let value = Mutex<(messages: [SSEMessage], ended: Bool)>(([], false))
        func withLock<T>(_ body: (inout (messages: [SSEMessage], ended: Bool)) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// Opens `GET http://127.0.0.1:<port><path>` as `user` (the test gateway's stand-in for a verified token).
    static func open(port: Int, user: UUID?, lastEventID: String? = nil, path: String = "/v1/notifications/stream") async throws -> SSEClient {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let user { request.headers.add(name: "X-Test-User", value: user.uuidString.lowercased()) }
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        return SSEClient(response)
    }

    private init(_ response: HTTPClientResponse) {
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        cacheControl = response.headers.first(name: "Cache-Control")
        let state = state
        reader = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        let block = String(pending[..<end.lowerBound])
                        pending = String(pending[end.upperBound...])
                        let message = Self.parse(block)
                        state.withLock { $0.messages.append(message) }
                    }
                }
            } catch {}
            state.withLock { $0.ended = true }
        }
    }

    /// Every message and comment so far, in order.
    var received: [SSEMessage] { state.withLock { $0.messages } }
    /// The messages with an id (notifications), in order.
    var notifications: [SSEMessage] { received.filter { $0.id != nil } }
    /// Whether the server ended the stream (or the connection dropped).
    var ended: Bool { state.withLock { $0.ended } }

    /// Drops the connection, as a phone going out of coverage would.
    func close() {
        reader.cancel()
    }

    static func parse(_ block: String) -> SSEMessage {
        var message = SSEMessage()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                message.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            var value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch line[..<colon] {
            case "id": message.id = String(value)
            case "event": message.event = String(value)
            case "data": message.data = (message.data.map { $0 + "\n" } ?? "") + value
            case "retry": message.retry = String(value)
            default: break
            }
        }
        return message
    }
}
