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
        try await BenchHTTP(client: client, base: base).send(method, path, body: body, token: token, expect: expect)
    }
}
