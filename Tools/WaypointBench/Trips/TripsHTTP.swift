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

    /// `GET` of `path` with a bearer token; the body.
    func get(_ path: String, token: String) async throws -> Data {
        try await send(.GET, path, body: nil, token: token, expect: [.ok])
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, token: String, expect: Set<HTTPResponseStatus>) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let data = Data(bytes.readableBytesView)
        guard expect.contains(response.status) else {
            throw TripsBenchError("\(method) \(path) answered \(response.status.code): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return data
    }
}

/// A consumer of record-trip's embedded feed (`GET /v1/internal/events`, long poll), as path-review and analytics read
/// it on the embedded transport: it waits for a given trip's `TripFinished`.
struct FeedWatcher: Sendable {
    let http: TripsHTTP
    let token: String

    /// The feed's head position now.
    func head() async throws -> Int64 {
        let page = try await http.get("/v1/internal/events?after=0&limit=1", token: token)
        guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any] else { throw TripsBenchError("feed page is not JSON") }
        return (object["head"] as? NSNumber)?.int64Value ?? 0
    }

    /// Long-polls from `after` until a `TripFinished` of `trip` arrives.
    func waitForFinished(trip: String, after: Int64) async throws {
        var position = after
        while true {
            let page = try await http.get("/v1/internal/events?after=\(position)&limit=1000&wait=5", token: token)
            guard let object = try JSONSerialization.jsonObject(with: page) as? [String: Any],
                  let events = object["events"] as? [[String: Any]] else { throw TripsBenchError("feed page is not an events page") }
            for event in events {
                if let number = event["position"] as? NSNumber { position = max(position, number.int64Value) }
                if event["eventType"] as? String == "TripFinished", event["streamID"] as? String == "trip-\(trip.lowercased())" {
                    return
                }
            }
        }
    }
}
