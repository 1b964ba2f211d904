import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import RecordTrip
import RecordTripAnalysis
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: GPX import and the anonymous preview")
struct TripImportPreviewTests {
    typealias App = TripApp

    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: String, token: String?) async throws -> (Int, [String: Any]) {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers[.contentType] = "application/gpx+xml"
        let response = try await client.executeRequest(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
    }

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="waypoint-tests" xmlns="http://www.topografix.com/GPX/1/1">
          <trk><name>Krems</name><trkseg>
            <trkpt lat="48.4105" lon="15.6000"><ele>200</ele><time>2026-09-21T08:00:00Z</time></trkpt>
            <trkpt lat="48.4105" lon="15.6001"><ele>200.1</ele><time>2026-09-21T08:00:01Z</time></trkpt>
            <trkpt lat="48.4105" lon="15.6002"><ele>200.2</ele><time>2026-09-21T08:00:02Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """

    @Test("import: a GPX file becomes a finished trip (201) when the reader reads it; a body that is not GPX is 422 invalid-gpx")
    func importGPX() async throws {
        try await App.with { client, _ in
            let token = try await App.token(UUID.v4())
            let (status, json) = try await Self.post(client, "/v1/trips/import", Self.gpx, token: token)
            // The reader is another engineer's (a placeholder here that refuses everything): the service answers
            // with what the reader says — a finished trip when it reads the file, 422 otherwise.
            if (try? GPXReader.read(Data(Self.gpx.utf8))) != nil {
                #expect(status == 201 && json["status"] as? String == "finished" && json["source"] as? String == "imported")
                #expect(json["fixCount"] as? Int == 3)
            } else {
                #expect(status == 422 && json["code"] as? String == "invalid-gpx")
            }
            let notGPX = try await Self.post(client, "/v1/trips/import", "this is not GPX", token: token)
            #expect(notGPX.0 == 422 && notGPX.1["code"] as? String == "invalid-gpx")
            #expect(try await Self.post(client, "/v1/trips/import", Self.gpx, token: nil).0 == 401)
        }
    }

    @Test("preview: no sign-in needed, answers the analysis and stores nothing; bad input is 422 or 400")
    func preview() async throws {
        try await App.with { client, h in
            let body = App.chunk(0, first: 0, fixes: 30).replacingOccurrences(of: #""sequence":0,"#, with: "")
            let before = try await h.store.headPosition()
            let reply = try await client.sendJSON(.post, "/v1/trips/preview", json: body)
            #expect(reply.status == 200 && reply.json["statistics"] != nil && reply.json["route"] != nil && reply.json["cleaning"] != nil)
            #expect(try await h.store.headPosition() == before, "nothing stored")
            #expect(try await client.sendJSON(.post, "/v1/trips/preview", json: "{}").status == 422)
            #expect(try await client.sendJSON(.post, "/v1/trips/preview", json: "{").status == 400)
            #expect(try await client.sendJSON(.post, "/v1/trips/preview", json: body, token: "not-a-token").status == 401)
        }
    }
}
