import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing
@testable import PathReview

/// `GET /v1/paths?bbox=` and `?near=` over HTTP on both backends. Synthetic paths (seeded random walks of 2–7 points,
/// 20–80 m steps, round Krems and Monaco) appended to the log as approvals; the expected listing is a brute-force filter
/// of their own boxes against the requested one, by path id.
@Suite("Approved network by area over HTTP")
struct ApprovedPathListingTests {
    struct Walk { var id: UUID; var geometry: [[Double]] }

    /// `count` seeded walks; half start near Krems (48.41 N 15.60 E), half near Monaco (43.73 N 7.42 E).
    static func walks(_ count: Int, seed: UInt64) -> [Walk] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let (lat0, lng0) = index % 2 == 0 ? (48.41, 15.60) : (43.73, 7.42)
            var point = [lng0 + random.unit() * 0.03, lat0 + random.unit() * 0.02]
            var geometry = [point]
            for _ in 0..<(1 + Int(random.unit() * 6)) {
                let step = 20 + random.unit() * 60, heading = random.unit() * 2 * .pi
                point = [point[0] + step * sin(heading) / (111_195 * cos(point[1] * .pi / 180)), point[1] + step * cos(heading) / 111_195]
                geometry.append(point)
            }
            return Walk(id: UUID(), geometry: geometry)
        }
    }

    /// The ids whose box meets `box` (west, south, east, north), by lower-case id: the oracle.
    static func expected(_ walks: [Walk], _ box: (Double, Double, Double, Double)) -> [String] {
        walks.filter { walk in
            let lngs = walk.geometry.map { $0[0] }, lats = walk.geometry.map { $0[1] }
            return lngs.max()! >= box.0 && lngs.min()! <= box.2 && lats.max()! >= box.1 && lats.min()! <= box.3
        }.map { $0.id.uuidString.lowercased() }.sorted()
    }

    static func ids(_ json: [String: Any]) -> [String] {
        (json["features"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? String)?.lowercased() }
    }

    @Test("SQLite's box key orders as the path id's text does; ids alike in their first 64 bits are both listed, by id, and leave when retired")
    func boxKeys() async throws {
        var random = SystemRandomNumberGenerator()
        let ids = (0..<2_000).map { _ in UUID() } + [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                                                      UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
                                                      UUID(uuid: (127, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0)),
                                                      UUID(uuid: (128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
        let byText = ids.map { $0.uuidString.lowercased() }.sorted()
        let byKey = ids.shuffled(using: &random).sorted { SQLiteApprovedNetworkProjection.boxKey($0) < SQLiteApprovedNetworkProjection.boxKey($1) }
        #expect(byKey.map { $0.uuidString.lowercased() } == byText)

        try await PathReviewApp.with(.sqlite) { client, server in
            let first = try #require(UUID(uuidString: "01234567-89ab-cdef-0000-000000000001"))
            let second = try #require(UUID(uuidString: "01234567-89ab-cdef-ffff-000000000002"))
            let line = [[15.60, 48.41], [15.601, 48.41]]
            for id in [first, second] { try await ApprovedNetworkLookupTests.approve(id, nodes: [1, 2], line, server) }
            try await server.approvedNetwork.catchUp()
            let listed = try await client.sendJSON(.get, "/v1/paths?bbox=15.5,48.3,15.7,48.5")
            #expect(Self.ids(listed.json) == [first, second].map { $0.uuidString.lowercased() })
            try await ApprovedNetworkLookupTests.append(PathRetired(pathId: first, retiredAt: ApprovedNetworkLookupTests.t0), path: first, server)
            try await server.approvedNetwork.catchUp()
            #expect(Self.ids(try await client.sendJSON(.get, "/v1/paths?bbox=15.5,48.3,15.7,48.5").json) == [second.uuidString.lowercased()])
        }
    }

    @Test("bbox lists exactly the paths whose box meets it (oracle), truncates at the limit, simplifies by zoom; rebuild = live",
          arguments: TestBackend.enabled)
    func byBox(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let walks = Self.walks(60, seed: 20)
            for walk in walks {
                try await ApprovedNetworkLookupTests.approve(walk.id, nodes: walk.geometry.indices.map { Int64($0 + 1) }, walk.geometry, server)
            }
            try await server.approvedNetwork.catchUp()
            var random = SeededGenerator(seed: 21)
            var boxes: [(Double, Double, Double, Double)] = [(-180, -90, 180, 90), (15.60, 48.41, 15.615, 48.42)]
            for _ in 0..<10 {
                let (lat0, lng0) = random.unit() < 0.5 ? (48.41, 15.60) : (43.73, 7.42)
                let (w, s) = (lng0 + random.unit() * 0.03, lat0 + random.unit() * 0.02)
                boxes.append((w, s, w + random.unit() * 0.015, s + random.unit() * 0.01))
            }
            for box in boxes {
                let listed = try await client.sendJSON(.get, "/v1/paths?bbox=\(box.0),\(box.1),\(box.2),\(box.3)")
                #expect(listed.status == 200 && listed.json["type"] as? String == "FeatureCollection", "\(listed.json)")
                #expect(Self.ids(listed.json) == Self.expected(walks, box), "box \(box)")
                #expect(listed.json["truncated"] as? Bool == false)
            }
            let world = "/v1/paths?bbox=-180,-90,180,90"
            let five = try await client.sendJSON(.get, world + "&limit=5")
            #expect(Self.ids(five.json) == Array(Self.expected(walks, (-180, -90, 180, 90)).prefix(5)) && five.json["truncated"] as? Bool == true)
            let full = try await client.sendJSON(.get, world)
            let coarse = try await client.sendJSON(.get, world + "&zoom=8")
            let points = { (json: [String: Any]) in (json["features"] as? [[String: Any]] ?? []).map { (($0["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] ?? []).count } }
            #expect(points(full.json).reduce(0, +) == walks.map(\.geometry.count).reduce(0, +))
            #expect(points(coarse.json).allSatisfy { $0 == 2 }, "at zoom 8 (~400 m a pixel) every short walk is its two ends")
            // The pre-rendered features say what encoding the path now would say, with its current condition and obstacles.
            let first = walks[0].id
            try await ApprovedNetworkLookupTests.confirm(UUID(), on: first, at: 5, server)
            try await ApprovedNetworkLookupTests.append(PathStatusChanged(pathId: first, condition: "requires-maintenance", source: .reports,
                                                                          changedAt: ApprovedNetworkLookupTests.t0), path: first, server)
            try await server.approvedNetwork.catchUp()
            let now = try await client.sendJSON(.get, world)
            let record = try #require(try await server.networkReads.path(id: first))
            let encoded = try ServiceJSON.makeEncoder().encode(ApprovedPathListFeature(
                ApprovedPathSummary(approved: record.approved, condition: record.condition, obstacleCount: record.obstacles.count), tolerance: nil))
            let expected = try #require(try JSONSerialization.jsonObject(with: encoded) as? NSDictionary)
            let listed = try #require((now.json["features"] as? [[String: Any]])?.first { ($0["id"] as? String)?.lowercased() == first.uuidString.lowercased() })
            #expect(NSDictionary(dictionary: listed) == expected, "\(listed) vs \(expected)")
            #expect((listed["properties"] as? [String: Any])?["condition"] as? String == "requires-maintenance")
            #expect((listed["properties"] as? [String: Any])?["obstacleCount"] as? Int == 1)
            try await server.approvedNetwork.rebuild()
            #expect(Self.ids(try await client.sendJSON(.get, world).json) == Self.ids(full.json), "rebuild = live")
            #expect(NSDictionary(dictionary: try await client.sendJSON(.get, world).json) == NSDictionary(dictionary: now.json), "rebuild = live, every feature")
        }
    }

    @Test("near lists the paths within the radius nearest first as features; bad boxes, points and parameters are problems",
          arguments: TestBackend.enabled)
    func nearAndBadInput(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let (a, b) = (UUID(), UUID())
            try await ApprovedNetworkLookupTests.approve(a, nodes: [1, 2], [[15.60, 48.41], [15.61, 48.41]], server)
            try await ApprovedNetworkLookupTests.approve(b, nodes: [3, 4], [[15.61, 48.41], [15.61, 48.42]], server)
            try await server.approvedNetwork.catchUp()
            let near = try await client.sendJSON(.get, "/v1/paths?near=48.415,15.6105&radiusM=1000")
            #expect(near.status == 200 && Self.ids(near.json) == [b, a].map { $0.uuidString.lowercased() }, "\(near.json)")
            #expect(Self.ids(try await client.sendJSON(.get, "/v1/paths?near=48.415,15.6105").json) == [b.uuidString.lowercased()])
            for query in ["", "?bbox=15.7,48.4,15.6,48.5", "?bbox=15.6,48.5,15.7,48.4", "?bbox=nan,48,15,49", "?bbox=1,2,3",
                          "?bbox=-181,0,0,1", "?bbox=0,0,1,1&near=0,0", "?bbox=0,0,1,1&zoom=23", "?bbox=0,0,1,1&zoom=1.5",
                          "?bbox=0,0,1,1&limit=501", "?near=91,0", "?near=48,15&radiusM=0", "?near=48,15&limit=51"] {
                let answer = try await client.sendJSON(.get, "/v1/paths\(query)")
                #expect((400..<500).contains(answer.status) && answer.json["title"] != nil, "\(query): \(answer.status) \(answer.json)")
            }
        }
    }
}
