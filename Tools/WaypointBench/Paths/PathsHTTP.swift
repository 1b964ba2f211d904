import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The path-review calls the bench makes, over one `HTTPClient`; any answer but the expected status is an error naming
/// the call and the body.
struct PathsHTTP: Sendable {
    let client: HTTPClient
    let base: String

    /// `GET` of `path` (with a bearer token when given); the body.
    func get(_ path: String, token: String? = nil) async throws -> Data {
        try await send(.GET, path, body: nil, token: token, expect: [.ok])
    }

    /// `POST /v1/paths/drafts` with a prepared body; the new draft's id.
    func createDraft(_ body: Data, token: String) async throws -> String {
        let answer = try await send(.POST, "/v1/paths/drafts", body: body, token: token, expect: [.created])
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any], let id = object["id"] as? String else {
            throw PathsBenchError("POST /v1/paths/drafts answered without an id")
        }
        return id
    }

    /// `POST /v1/paths/drafts/{id}/publish` (the author).
    func publish(_ draft: String, token: String) async throws {
        _ = try await send(.POST, "/v1/paths/drafts/\(draft)/publish", body: nil, token: token, expect: [.ok])
    }

    /// `POST /v1/paths/review-queue/{id}/claim` (a moderator).
    func claim(_ draft: String, token: String) async throws {
        _ = try await send(.POST, "/v1/paths/review-queue/\(draft)/claim", body: nil, token: token, expect: [.ok])
    }

    /// `POST /v1/paths/review-queue/{id}/decision` with `{"outcome": "approve"}` (the moderator holding it).
    func approve(_ draft: String, token: String) async throws {
        _ = try await send(.POST, "/v1/paths/review-queue/\(draft)/decision", body: Data(#"{"outcome":"approve"}"#.utf8), token: token,
                           expect: [.ok])
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, token: String?, expect: Set<HTTPResponseStatus>) async throws -> Data {
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
            throw PathsBenchError("\(method) \(path) answered \(response.status.code): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return data
    }
}

/// A consumer of path-review's embedded feed (`GET /v1/internal/events`, long poll), as the other services read
/// `waypoint.paths` on the embedded transport: it waits for a given draft's `PathApproved`.
struct PathFeedWatcher: Sendable {
    let http: PathsHTTP
    let token: String

    /// The feed's head position now.
    func head() async throws -> Int64 {
        let page = try await http.get("/v1/internal/events?after=0&limit=1", token: token)
        guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any] else { throw PathsBenchError("feed page is not JSON") }
        return (object["head"] as? NSNumber)?.int64Value ?? 0
    }

    /// Long-polls from `after` until the `PathApproved` of draft `id` arrives.
    func waitForApproval(of id: String, after: Int64) async throws {
        let stream = "path-draft-\(id.lowercased())"
        var position = after
        while true {
            let page = try await http.get("/v1/internal/events?after=\(position)&limit=1000&wait=5", token: token)
            guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any],
                  let events = object["events"] as? [[String: Any]] else { throw PathsBenchError("feed page is not an events page") }
            for event in events {
                if let number = event["position"] as? NSNumber { position = max(position, number.int64Value) }
                if event["eventType"] as? String == "PathApproved", event["streamID"] as? String == stream { return }
            }
        }
    }
}
