import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The demo seeders' HTTP: one JSON (or raw) request, an answer whose status must be one of those expected.
public struct DemoClient: Sendable {
    /// A JSON object answer and its headers.
    struct Answer: @unchecked Sendable {
        var status: Int
        var json: [String: Any]
        var headers: HTTPHeaders
    }

    /// One JSON request; throws unless the status is one of `expect`.
    func call(_ method: HTTPMethod, _ url: String, token: String? = nil, body: [String: Any]? = nil, expect: Set<Int>)
        async throws -> [String: Any] {
        try await send(method, url, token: token, body: body, expect: expect).json
    }

    /// One request with a JSON body (`body`) or a raw one (`raw` with `contentType`) and extra `headers`.
    func send(_ method: HTTPMethod, _ url: String, token: String? = nil, body: [String: Any]? = nil, raw: Data? = nil,
              contentType: String? = nil, headers extra: [String: String] = [:], expect: Set<Int>) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        } else if let raw {
            request.headers.add(name: "Content-Type", value: contentType ?? "application/octet-stream")
            request.body = .bytes(ByteBuffer(bytes: raw))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        let text = String(buffer: bytes)
        guard expect.contains(Int(response.status.code)) else {
            throw LauncherError("\(method) \(url) answered \(response.status.code): \(text.prefix(500))")
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return Answer(status: Int(response.status.code), json: json, headers: response.headers)
    }

    /// Registers the account (an existing one is fine) and logs in; returns the access token.
    func signIn(_ account: DemoData.Account, base: String) async throws -> String {
        _ = try await call(.POST, "\(base)/v1/auth/register", body: [
            "username": account.username, "email": account.email, "password": account.password, "role": account.role,
        ], expect: [201, 422])
        return try await logIn(account, base: base)
    }

    /// Logs in (the token carries the roles granted so far).
    func logIn(_ account: DemoData.Account, base: String) async throws -> String {
        let login = try await call(.POST, "\(base)/v1/auth/login", body: [
            "email": account.email, "password": account.password, "deviceId": "waypoint-demo",
        ], expect: [200])
        guard let token = login["accessToken"] as? String else { throw LauncherError("login of \(account.email) answered no token") }
        return token
    }
}
