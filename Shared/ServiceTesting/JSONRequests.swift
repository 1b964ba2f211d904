import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore

/// A test request's answer: the status code, the body parsed as a JSON object (empty when it is not one) and the headers.
public typealias JSONReply = (status: Int, json: [String: Any], headers: HTTPFields)

extension TestClientProtocol {
    /// Sends `method uri` with an optional JSON body (`json` text or raw `bytes`) and bearer `token`; the answer with its
    /// body parsed as a JSON object.
    public func sendJSON(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, bytes: [UInt8]? = nil, token: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> JSONReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if json != nil || bytes != nil { headers[.contentType] = "application/json" }
        let body = json.map { ByteBuffer(string: $0) } ?? bytes.map { ByteBuffer(bytes: $0) }
        let response = try await executeRequest(uri: uri, method: method, headers: headers, body: body)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object, response.headers)
    }

    /// Polls `GET uri` until `done` holds for its JSON (read models trail the log) and returns that JSON; throws
    /// ``WaitTimeout`` naming `what` (by default the request) after `timeout`.
    public func waitForJSON(
        _ uri: String, token: String? = nil, timeout: Duration = .seconds(20), interval: Duration = .milliseconds(20),
        _ what: String? = nil, until done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await waitUntil(what ?? "GET \(uri) answers as expected", timeout: timeout, interval: interval,
                            reading: { try await sendJSON(.get, uri, token: token).json }, until: done)
    }

    /// Polls `GET uri` until its JSON lists `count` items under `key` (e.g. a search listing one tour) and returns it.
    public func waitForJSON(
        _ uri: String, listing count: Int, under key: String, token: String? = nil, timeout: Duration = .seconds(20),
        interval: Duration = .milliseconds(20)
    ) async throws -> [String: Any] {
        try await waitForJSON(uri, token: token, timeout: timeout, interval: interval, "GET \(uri) lists \(count) \(key)") {
            ($0[key] as? [Any])?.count == count
        }
    }
}
