import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One request of a service bench over one `HTTPClient`: any answer but the expected status is an error naming the
/// call and the body (what `TripsHTTP` and `PathsHTTP` send through).
struct BenchHTTP: Sendable {
    let client: HTTPClient
    let base: String

    func send(_ method: HTTPMethod, _ path: String, body: Data?, token: String?, expect: Set<HTTPResponseStatus>) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let data = Data(bytes.readableBytesView)
        guard expect.contains(response.status) else {
            throw BenchHTTPError(description: "\(method) \(path) answered \(response.status.code): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return data
    }
}

/// A service answered otherwise than the bench expected.
struct BenchHTTPError: Error, CustomStringConvertible {
    var description: String
}

/// A consumer of a service's embedded feed (`GET /v1/internal/events`, long poll), as the other services read it on
/// the embedded transport: it waits for one event of one stream.
struct EmbeddedFeedWatcher: Sendable {
    let http: BenchHTTP
    let token: String

    /// The feed's head position now.
    func head() async throws -> Int64 {
        let page = try await http.send(.GET, "/v1/internal/events?after=0&limit=1", body: nil, token: token, expect: [.ok])
        guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any] else { throw BenchHTTPError(description: "feed page is not JSON") }
        return (object["head"] as? NSNumber)?.int64Value ?? 0
    }

    /// Long-polls from `after` until an event of `eventType` on `stream` arrives.
    func waitFor(_ eventType: String, on stream: String, after: Int64) async throws {
        var position = after
        while true {
            let page = try await http.send(.GET, "/v1/internal/events?after=\(position)&limit=1000&wait=5", body: nil, token: token, expect: [.ok])
            guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any],
                  let events = object["events"] as? [[String: Any]] else { throw BenchHTTPError(description: "feed page is not an events page") }
            for event in events {
                if let number = event["position"] as? NSNumber { position = max(position, number.int64Value) }
                if event["eventType"] as? String == eventType, event["streamID"] as? String == stream { return }
            }
        }
    }
}
