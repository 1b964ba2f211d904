import Foundation
import HummingbirdTesting
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

@Suite("path-review: drafts over HTTP")
struct PathDraftRoutesTests {
    /// A draft of a whole street with a pothole on its first point (the point is on the route by construction: a
    /// vertex of the street): the first Hafenstraße for names starting "Hafen", another compatible Krems street (of one
    /// edge, so its first point is on the route) for every other name (once a path is approved along a street, no
    /// second draft may cover it).
    static func body(_ server: PathReviewServer, name: String = "Hafen loop", condition: String = "medium") throws -> String {
        let hafen = try #require(name.hasPrefix("Hafen") ? server.roads.streets.search("Hafenstraße", offset: 0, limit: 1).entries.first
                                                      : street(for: name, server))
        let first = server.roads.network.graph.shape(of: hafen.street.edges[0])[0]
        return """
            {"name":"\(name)","condition":"\(condition)","details":{"segregatedFromCars":false,"surface":"asphalt","lit":true},
             "pieces":[{"streetId":\(hafen.street.id)}],
             "obstacles":[{"type":"pothole","point":{"lat":\(first.latitude),"lng":\(first.longitude)},"note":"deep"}]}
            """
    }

    static func etag(_ reply: JSONReply) -> String? { reply.headers[.eTag] }

    /// A compatible one-edge street of 150 m–1.5 km in Krems chosen by the name (the same name, the same street).
    static func street(for name: String, _ server: PathReviewServer) -> StreetCatalog.Entry? {
        let candidates = server.roads.streets.index.streets.compactMap { server.roads.streets.street(id: $0.id) }
            .filter { $0.compatibility.compatible && $0.street.edges.count == 1 && (150...1_500).contains($0.length) && $0.street.south > 48.35 && $0.street.north < 48.45
                && $0.street.name != "Hafenstraße" }
            .sorted { $0.street.id < $1.street.id }
        guard !candidates.isEmpty else { return nil }
        let key = name.unicodeScalars.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1.value)) &* 1099511628211 }
        return candidates[Int(key % UInt64(candidates.count))]
    }

    @Test("create, read, replace with If-Match, delete: the author's draft with its route, obstacles and ETag", arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let token = try await TokenForge.token(UUID())
            let created = try await client.sendJSON(.post, "/v1/paths/drafts", json: try Self.body(server), token: token)
            #expect(created.status == 201 && Self.etag(created) == "\"1\"")
            #expect(created.json["source"] as? String == "manual")
            let id = try #require(created.json["id"] as? String)
            #expect(created.headers[.location] == "/v1/paths/drafts/\(id)")
            #expect((created.json["nodeIds"] as? [Int64])?.count ?? 0 >= 2 && (created.json["lengthMetres"] as? Double ?? 0) > 50)
            #expect((created.json["geometry"] as? [String: Any])?["type"] as? String == "LineString")
            let obstacle = try #require((created.json["obstacles"] as? [[String: Any]])?.first)
            #expect(obstacle["type"] as? String == "pothole" && obstacle["note"] as? String == "deep")
            #expect((created.json["details"] as? [String: Any])?["surface"] as? String == "asphalt")

            let read = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)", token: token)
            #expect(read.status == 200 && read.json["name"] as? String == "Hafen loop" && Self.etag(read) == "\"1\"")
            let revised = try Self.body(server, name: "Hafen loop, revised", condition: "requires-maintenance")
            let noMatch = try await client.sendJSON(.put, "/v1/paths/drafts/\(id)", json: revised, token: token)
            #expect(noMatch.status == 428 && noMatch.json["code"] as? String == "if-match-required")
            let stale = try await client.sendJSON(.put, "/v1/paths/drafts/\(id)", json: revised, token: token, headers: [.ifMatch: "\"7\""])
            #expect(stale.status == 412 && stale.json["code"] as? String == "version-mismatch")
            let replaced = try await client.sendJSON(.put, "/v1/paths/drafts/\(id)", json: revised, token: token, headers: [.ifMatch: "\"1\""])
            #expect(replaced.status == 200 && Self.etag(replaced) == "\"2\"" && replaced.json["condition"] as? String == "requires-maintenance")
            #expect(try await client.sendJSON(.delete, "/v1/paths/drafts/\(id)", token: token).status == 204)
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(id)", token: token).status == 404)
        }
    }

    @Test("a draft is private: another cyclist gets 404 for it, and lists only their own; no token is 401", arguments: TestBackend.enabled)
    func privacy(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let (author, other) = (try await TokenForge.token(UUID()), try await TokenForge.token(UUID()))
            let id = try #require(try await client.sendJSON(.post, "/v1/paths/drafts", json: try Self.body(server), token: author).json["id"] as? String)
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(id)", token: other).status == 404)
            #expect(try await client.sendJSON(.put, "/v1/paths/drafts/\(id)", json: try Self.body(server), token: other,
                                              headers: [.ifMatch: "1"]).status == 404)
            #expect(try await client.sendJSON(.delete, "/v1/paths/drafts/\(id)", token: other).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/not-a-uuid", token: author).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts").status == 401)
            try await server.draftList.catchUp()
            #expect(PathReviewApp.list(try await client.sendJSON(.get, "/v1/paths/drafts", token: other).json).isEmpty)
            #expect(PathReviewApp.list(try await client.sendJSON(.get, "/v1/paths/drafts", token: author).json).map { $0["id"] as? String } == [id])
        }
    }

    @Test("422 lists every problem at once: name, condition, an obstacle type, an incompatible and an unknown street; 10,000 pieces are refused")
    func everyProblem() async throws {
        try await PathReviewApp.with { client, server in
            let token = try await TokenForge.token(UUID())
            let stairs = try #require(server.roads.streets.search("Piaristenstiege", offset: 0, limit: 1).entries.first)
            let bad = """
                {"name":"  ","condition":"splendid","pieces":[{"streetId":\(stairs.street.id)},{"streetId":1},{"line":[{"lat":48.41,"lng":15.6}]}],
                 "obstacles":[{"type":"pothole","point":{"lat":48.41,"lng":15.6}}]}
                """
            let reply = try await client.sendJSON(.post, "/v1/paths/drafts", json: bad, token: token)
            #expect(reply.status == 422)
            #expect(Set(PathReviewApp.fields(reply.json)) == ["name", "condition", "pieces[0].streetId", "pieces[1].streetId", "pieces[2].line"])
            let many = "{\"name\":\"x\",\"condition\":\"optimal\",\"pieces\":[" + Array(repeating: "{\"streetId\":1}", count: 10_000).joined(separator: ",") + "]}"
            let tooMany = try await client.sendJSON(.post, "/v1/paths/drafts", json: many, token: token)
            #expect(tooMany.status == 422 && PathReviewApp.fields(tooMany.json) == ["pieces"])
        }
    }

    @Test("an obstacle 3 km from its path is 422 off-path; the drafts read model rebuilt from the log equals the live one",
          arguments: TestBackend.enabled)
    func offPathAndRebuild(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let author = UUID()
            let token = try await TokenForge.token(author)
            let hafen = try #require(server.roads.streets.search("Hafenstraße", offset: 0, limit: 1).entries.first)
            let offPath = """
                {"name":"x","condition":"optimal","pieces":[{"streetId":\(hafen.street.id)}],
                 "obstacles":[{"type":"glass","point":{"lat":\(hafen.street.north + 0.027),"lng":\(hafen.street.east)}}]}
                """
            let refused = try await client.sendJSON(.post, "/v1/paths/drafts", json: offPath, token: token)
            #expect(refused.status == 422 && PathReviewApp.fields(refused.json) == ["obstacles[0].point"])
            var ids: [String] = []
            for index in 0..<5 {
                let reply = try await client.sendJSON(.post, "/v1/paths/drafts", json: try Self.body(server, name: "draft \(index)"), token: token)
                ids.append(try #require(reply.json["id"] as? String))
            }
            #expect(try await client.sendJSON(.delete, "/v1/paths/drafts/\(ids[1])", token: token).status == 204)
            _ = try await client.sendJSON(.put, "/v1/paths/drafts/\(ids[3])", json: try Self.body(server, name: "draft 3, renamed"), token: token,
                                          headers: [.ifMatch: "1"])
            try await server.draftList.catchUp()
            let page1 = try await client.sendJSON(.get, "/v1/paths/drafts?limit=2", token: token).json
            let cursor = try #require(page1["nextCursor"] as? String)
            let page2 = try await client.sendJSON(.get, "/v1/paths/drafts?limit=10&cursor=\(cursor)", token: token).json
            let live = (PathReviewApp.list(page1) + PathReviewApp.list(page2)).compactMap { $0["id"] as? String }
            #expect(live.count == 4 && Set(live) == Set(ids).subtracting([ids[1]]) && live.first == ids[3], "most recently changed first")
            let before = try await server.stores.drafts.page(author: author, after: nil, limit: 100)
            try await server.draftList.rebuild()
            #expect(try await server.stores.drafts.page(author: author, after: nil, limit: 100) == before, "rebuild = live")
        }
    }
}
