import Contracts
import EventSourcing
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import RecordTrip
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: recording over HTTP (chunks, finish, reads, delete) on both backends")
struct TripRecordingTests {
    typealias App = TripApp

    @Test("create, chunks out of order, the same chunk again (200, no event), finish, read; the log holds one event per chunk",
          arguments: TestBackend.enabled)
    func recordAndFinish(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4()
            let token = try await App.token(rider)
            let session = UUID.v4()
            let id = try await App.create(client, token: token, navigationSession: session)
            let uri = "/v1/trips/\(id)"

            let second = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(1, first: 60, fixes: 60), token: token)
            #expect(second.status == 201 && second.json["chunks"] as? [Int] == [1])
            let first = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 0, fixes: 60), token: token)
            #expect(first.status == 201 && first.json["chunks"] as? [Int] == [0, 1])
            #expect(first.json["fixCount"] as? Int == 120 && first.json["accelerationCount"] as? Int == 6_000)
            let again = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 0, fixes: 60), token: token)
            #expect(again.status == 200, "a resent chunk is accepted without change")
            let conflict = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 1, fixes: 60), token: token)
            #expect(conflict.status == 409 && conflict.json["code"] as? String == "chunk-conflict")

            let recording = try await client.sendJSON(.get, uri, token: token)
            #expect(recording.json["status"] as? String == "recording" && recording.json["navigationSessionId"] as? String == session.uuidString.lowercased())

            let finished = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(finished.status == 200 && finished.json["status"] as? String == "finished")
            #expect(finished.json["statistics"] != nil && finished.json["cleaning"] != nil && finished.json["route"] != nil)
            #expect(finished.json["weather"] == nil, "no provider configured")
            #expect((finished.json["route"] as? [String: Any])?["attribution"] as? String == "Map data © OpenStreetMap contributors, ODbL 1.0")
            let start = (finished.json["statistics"] as? [String: Any])?["start"] as? [String: Any]
            #expect(start?["lat"] as? Double == 48.4105, "the first fix is kept (5 m accuracy, 5 m/s)")
            let finishedAgain = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(finishedAgain.status == 200 && finishedAgain.json["finishedAt"] as? String == finished.json["finishedAt"] as? String)

            let events = try await h.store.readStream(TripAggregate.streamID(UUID(uuidString: id)!))
            #expect(events.map(\.eventType) == ["TripStarted", "TripSamplesReceived", "TripSamplesReceived", "TripFinishRequested", "TripAnalysed",
                                                 "TripFinished"])
            let after = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(2, first: 0, fixes: 1), token: token)
            #expect(after.status == 409 && after.json["code"] as? String == "trip-finished")

            // The list (read model) shows it, newest first, with totals.
            let list = try await client.waitForJSON("/v1/trips", token: token, timeout: .seconds(20)) {
                (($0["trips"] as? [[String: Any]])?.first?["status"] as? String) == "finished"
            }
            #expect((list["totals"] as? [String: Any])?["trips"] as? Int == 1)
            let summary = try await client.sendJSON(.get, "/v1/trips/summary?period=month", token: token)
            #expect(summary.status == 200 && (summary.json["buckets"] as? [Any])?.count == 1)
            let weekly = try await client.sendJSON(.get, "/v1/trips/summary", token: token)
            #expect(weekly.json["period"] as? String == "week")
        }
    }

    @Test("bad input: someone else's trip 404, no token 401, an empty trip 422, an empty chunk and bad fields 422 with every field, NaN 400")
    func badInput() async throws {
        try await App.with { client, h in
            let rider = UUID.v4(), stranger = UUID.v4()
            let token = try await App.token(rider), strangerToken = try await App.token(stranger)
            let id = try await App.create(client, token: token)
            let uri = "/v1/trips/\(id)"

            #expect(try await client.sendJSON(.post, "/v1/trips", json: "{}").status == 401)
            let foreign = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 0, fixes: 5), token: strangerToken)
            #expect(foreign.status == 404 && foreign.json["code"] as? String == "unknown-trip")
            #expect(try await client.sendJSON(.get, uri, token: strangerToken).status == 404)
            #expect(try await client.sendJSON(.post, "\(uri)/finish", token: strangerToken).status == 404)
            #expect(try await client.sendJSON(.delete, uri, token: strangerToken).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/trips/not-a-uuid", token: token).status == 404)
            #expect(try await client.sendJSON(.post, "/v1/trips/\(UUID.v4().uuidString)/samples", json: App.chunk(0, first: 0, fixes: 1),
                                              token: token).status == 404)

            let empty = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(empty.status == 422 && empty.json["code"] as? String == "empty-trip")

            let emptyChunk = try await client.sendJSON(.post, "\(uri)/samples", json: #"{"sequence":0,"fixes":[]}"#, token: token)
            #expect(emptyChunk.status == 422 && App.fields(emptyChunk.json) == ["fixes"])
            let badFields = try await client.sendJSON(.post, "\(uri)/samples", json: #"{"sequence":-1}"#, token: token)
            #expect(badFields.status == 422 && App.fields(badFields.json).sorted() == ["fixes", "sequence"], "every field error at once")
            let nan = try await client.sendJSON(.post, "\(uri)/samples",
                                                json: #"{"sequence":0,"fixes":[{"time":NaN,"lat":48.4,"lng":15.6}]}"#, token: token)
            #expect(nan.status == 400 && nan.json["code"] as? String == "malformed-json")
            let repeated = try await client.sendJSON(.post, "\(uri)/samples",
                                                     json: #"{"sequence":0,"fixes":[{"time":1790000000,"lat":48.4,"lng":15.6,"lat":10}]}"#, token: token)
            #expect(repeated.status == 400 && repeated.json["code"] as? String == "malformed-json", "a repeated member name")
            let missing = try await client.sendJSON(.post, "\(uri)/samples", json: #"{"sequence":0,"fixes":[{"lat":48.4,"lng":15.6}]}"#,
                                                    token: token)
            #expect(missing.status == 422)
            // Fix values are the cleaner's to judge: accuracy 0, a 5,000 km jump and a fix out of order are accepted as uploaded.
            let odd = #"{"sequence":0,"fixes":[{"time":1790000010,"lat":48.41,"lng":15.6,"accuracy":0},{"time":1790000000,"lat":48.41,"lng":15.6},{"time":1790000020,"lat":10.0,"lng":60.0}]}"#
            #expect(try await client.sendJSON(.post, "\(uri)/samples", json: odd, token: token).status == 201)
            let finished = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(finished.status == 200, "a defined result: the cleaner counts what it drops")
            #expect(try await client.sendJSON(.get, "/v1/trips?limit=0", token: token).status == 422)
            #expect(try await client.sendJSON(.get, "/v1/trips?cursor=nonsense", token: token).status == 422)
            #expect(try await client.sendJSON(.get, "/v1/trips?from=yesterday", token: token).status == 422)
            #expect(try await client.sendJSON(.get, "/v1/trips/summary?period=year", token: token).status == 422)
            _ = h
        }
    }

    @Test("a 2 GB upload is refused by the body limit before a byte is read (413 payload-too-large); a trip past the limits is refused")
    func tooLarge() async throws {
        try await App.withPort { port, _ in
            let token = try await App.token(UUID.v4())
            let created = try RawHTTP.exchange(port: port, """
                POST /v1/trips HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n\
                Content-Length: 2\r\nConnection: close\r\n\r\n{}
                """)
            let id = try #require(created.range(of: #"(?<="id":")[0-9a-f-]{36}"#, options: .regularExpression).map { String(created[$0]) })
            let answer = try RawHTTP.exchange(port: port, """
                POST /v1/trips/\(id)/samples HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\
                Content-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n{"sequence":0,"fixes":[
                """)
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
            #expect(answer.contains("payload-too-large") && answer.contains("application/problem+json"))
        }
        try await App.with { client, _ in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            let over = try await client.sendJSON(.post, "/v1/trips/\(id)/samples", bytes: [UInt8](repeating: 32, count: (16 << 20) + 1), token: token)
            #expect(over.status == 413 && over.json["code"] as? String == "payload-too-large", "16 MiB per chunk")
            let long = #"{"sequence":0,"fixes":[{"time":1790000000,"lat":48.41,"lng":15.6},{"time":1790090000,"lat":48.41,"lng":15.6}]}"#
            let tooLong = try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: long, token: token)
            #expect(tooLong.status == 422 && tooLong.json["code"] as? String == "trip-too-long")
        }
    }

    @Test("pages: newest first with a cursor; delete removes the trip from its stream reads and from the list (204, then 404)",
          arguments: TestBackend.enabled)
    func pagesAndDelete(backend: TestBackend) async throws {
        try await App.with(backend) { client, _ in
            let token = try await App.token(UUID.v4())
            var ids: [String] = []
            for _ in 0..<3 { ids.append(try await App.create(client, token: token)) }
            _ = try await client.waitForJSON("/v1/trips", listing: 3, under: "trips", token: token, timeout: .seconds(20))
            let first = try await client.sendJSON(.get, "/v1/trips?limit=2", token: token)
            #expect((first.json["trips"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[1]])
            let cursor = try #require(first.json["nextCursor"] as? String)
            let second = try await client.sendJSON(.get, "/v1/trips?limit=2&cursor=\(cursor)", token: token)
            #expect((second.json["trips"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[0]])
            #expect(second.json["nextCursor"] == nil)

            #expect(try await client.sendJSON(.delete, "/v1/trips/\(ids[1])", token: token).status == 204)
            #expect(try await client.sendJSON(.get, "/v1/trips/\(ids[1])", token: token).status == 404)
            #expect(try await client.sendJSON(.delete, "/v1/trips/\(ids[1])", token: token).status == 404)
            let after = try await client.waitForJSON("/v1/trips", listing: 2, under: "trips", token: token, timeout: .seconds(20))
            #expect((after["trips"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[0]])
        }
    }

    @Test("an admin reads any trip; a rider only their own")
    func adminReads() async throws {
        try await App.with { client, _ in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            let admin = try await App.token(UUID.v4(), .admin)
            #expect(try await client.sendJSON(.get, "/v1/trips/\(id)", token: admin).status == 200)
            #expect(try await client.sendJSON(.get, "/v1/trips/\(id)", token: try await App.token(UUID.v4(), .moderator)).status == 404)
        }
    }

    @Test("exports: GPX and GeoJSON of the owner's trip with their content types; 404 for others")
    func exports() async throws {
        try await App.with { client, _ in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 30), token: token).status == 201)
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token).status == 200)
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            let geojson = try await client.executeRequest(uri: "/v1/trips/\(id)/export.geojson", method: .get, headers: headers, body: nil)
            #expect(geojson.status == .ok && geojson.headers[.contentType] == "application/geo+json")
            let collection = try JSONSerialization.jsonObject(with: Data(buffer: geojson.body)) as? [String: Any]
            #expect(collection?["type"] as? String == "FeatureCollection")
            let track = (collection?["features"] as? [[String: Any]])?.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "track" }
            #expect(track != nil, "the cleaned track (the placeholder cleaner keeps every fix; the real one keeps these clean ones)")
            let gpx = try await client.executeRequest(uri: "/v1/trips/\(id)/export.gpx", method: .get, headers: headers, body: nil)
            #expect(gpx.status == .ok && gpx.headers[.contentType] == "application/gpx+xml")
            headers[.authorization] = "Bearer \(try await App.token(UUID.v4()))"
            #expect(try await client.executeRequest(uri: "/v1/trips/\(id)/export.gpx", method: .get, headers: headers, body: nil).status == .notFound)
        }
    }
}
