import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The few record-trip calls the bench makes, over one `HTTPClient`; any answer but the expected status is an error
/// naming the call and the body.
struct TripsHTTP: Sendable {
    let client: HTTPClient
    let base: String

    /// `POST /v1/trips`; the new trip's id.
    func createTrip(token: String) async throws -> String {
        let body = try await send(.POST, "/v1/trips", body: Data("{}".utf8), token: token, expect: [.created])
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any], let id = object["id"] as? String else {
            throw TripsBenchError("POST /v1/trips answered without an id")
        }
        return id
    }

    /// `POST /v1/trips/{id}/samples` with a prepared chunk body.
    func postChunk(trip: String, sequence: Int, body: Data, token: String) async throws {
        _ = try await send(.POST, "/v1/trips/\(trip)/samples", body: body, token: token, expect: [.created])
    }

    /// `POST /v1/trips/{id}/finish`.
    func finish(trip: String, token: String) async throws {
        _ = try await send(.POST, "/v1/trips/\(trip)/finish", body: Data("{}".utf8), token: token, expect: [.ok, .accepted])
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, token: String?, expect: Set<HTTPResponseStatus>) async throws -> Data {
        try await BenchHTTP(client: client, base: base).send(method, path, body: body, token: token, expect: expect)
    }
}
