import Foundation
import HummingbirdTesting
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// The independent check: osmium-tool 1.15 on the Krems reference extract,
/// `osmium tags-filter krems.osm.gz w/highway` then `w/name`, read back as XML (ways by `name`, with their tags).
enum KremsByOsmium {
    /// Every highway way named "Hafenstraße" (11); 42063472 is `access=private`, which the bike profile refuses.
    static let hafenstrasse: Set<Int64> = [24746391, 24746392, 25150688, 25150690, 29744053, 38566224, 42063472, 51699420,
                                           53760156, 66724052, 104372792]
    static let hafenstrassePrivate: Int64 = 42063472
    /// Named ways that are all `highway=trunk` (a motor road the profile refuses): no street of these names.
    static let trunkOnly = ["Stockerauer Schnellstraße", "Kremser Straße"]
    /// Named ways that are all steps or pedestrian/foot ways without bicycle access: push-only, not compatible.
    static let pushOnly = ["Piaristenstiege", "Obere Landstraße", "Burgstiege", "Schumachergasse"]
    /// "Treppelweg": a footway, a track and four designated cycleways (59543410, 106609610–106609612).
    static let treppelwegCycleway: Int64 = 59543410
}

@Suite("path-review: streets")
struct StreetRoutesTests {
    @Test("search by name is case- and accent-insensitive, a word prefix, exact names first; the ways are osmium's")
    func byName() async throws {
        try await PathReviewApp.with { client, _ in
            for query in ["hafenstr", "HAFENSTRASSE", "Hafenstraße", "hafenstraße "] {
                let reply = try await client.sendJSON(.get, "/v1/streets?q=\(PathReviewApp.query(query))&limit=100")
                #expect(reply.status == 200)
                let streets = PathReviewApp.streets(reply.json)
                #expect(streets.first?["name"] as? String == "Hafenstraße", "\(query)")
                #expect((reply.json["attribution"] as? String)?.contains("OpenStreetMap") == true)
            }
            let all = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=hafenstrasse&limit=100").json)
                .filter { $0["name"] as? String == "Hafenstraße" }
            var ways: Set<Int64> = []
            for street in all {
                let id = try #require(street["id"] as? Int64)
                let detail = try await client.sendJSON(.get, "/v1/streets/\(id)")
                ways.formUnion((detail.json["wayIds"] as? [Int64]) ?? [])
            }
            #expect(ways == KremsByOsmium.hafenstrasse.subtracting([KremsByOsmium.hafenstrassePrivate]))
            for name in KremsByOsmium.trunkOnly {
                let found = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=\(PathReviewApp.query(name))").json)
                #expect(!found.contains { $0["name"] as? String == name }, "\(name) is a motor road")
            }
            let hafen = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=hafen&limit=100").json).compactMap { $0["name"] as? String }
            #expect(hafen.first == "Am Hafen" && hafen.contains("Hafenstraße"), "a whole word first (shorter name), then the prefix: \(hafen)")
            let words = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=landstr%20ober").json)
            #expect(words.isEmpty, "the last word is the prefix: 'ober' is not a whole word of a name")
            let other = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=obere%20landstr").json)
            #expect(other.first?["name"] as? String == "Obere Landstraße")
        }
    }

    @Test("compatible: push-only streets (steps, pedestrian zones) are not, a street with designated cycleways is")
    func compatibility() async throws {
        try await PathReviewApp.with { client, _ in
            for name in KremsByOsmium.pushOnly {
                let found = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=\(PathReviewApp.query(name))").json)
                let street = try #require(found.first { $0["name"] as? String == name }, "\(name)")
                #expect(street["compatible"] as? Bool == false && street["incompatibleReasons"] as? [String] == ["push-only"], "\(name)")
            }
            let treppelweg = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=treppelweg&limit=100").json)
            var withCycleway: [String: Any]?
            for street in treppelweg {
                let detail = try await client.sendJSON(.get, "/v1/streets/\(street["id"] as! Int64)").json
                if (detail["wayIds"] as? [Int64])?.contains(KremsByOsmium.treppelwegCycleway) == true { withCycleway = detail }
            }
            let street = try #require(withCycleway)
            #expect(street["compatible"] as? Bool == true && (street["incompatibleReasons"] as? [String])?.isEmpty == true)
        }
    }

    @Test("pages: the cursor continues the ranked list without gaps or repeats; the last page has no cursor")
    func paging() async throws {
        try await PathReviewApp.with { client, _ in
            let whole = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=str&limit=30").json).map { $0["id"] as! Int64 }
            #expect(whole.count > 10)
            var paged: [Int64] = []
            var uri = "/v1/streets?q=str&limit=7"
            for _ in 0..<10 {
                let reply = try await client.sendJSON(.get, uri)
                paged += PathReviewApp.streets(reply.json).map { $0["id"] as! Int64 }
                guard let cursor = reply.json["nextCursor"] as? String else { break }
                uri = "/v1/streets?q=str&limit=7&cursor=\(cursor)"
            }
            #expect(paged == whole || (whole.count == 30 && Array(paged.prefix(30)) == whole))
            #expect(Set(paged).count == paged.count)
        }
    }

    @Test("around a point: nearest first, within the radius, with distances; the nearest is the street the point lies on")
    func nearPoint() async throws {
        try await PathReviewApp.with { client, server in
            let hafen = try #require(server.roads.streets.search("hafenstraße", offset: 0, limit: 1).entries.first)
            let edge = hafen.street.edges[hafen.street.edges.count / 2]
            let shape = server.roads.network.graph.shape(of: edge)
            // Halfway along the edge's first segment: on this street only (a vertex could be shared with a crossing street).
            let mid = (latitude: (shape[0].latitude + shape[1].latitude) / 2, longitude: (shape[0].longitude + shape[1].longitude) / 2)
            let reply = try await client.sendJSON(.get, "/v1/streets?near=\(mid.latitude),\(mid.longitude)&radiusM=150")
            #expect(reply.status == 200)
            let streets = PathReviewApp.streets(reply.json)
            let distances = streets.compactMap { $0["distanceMetres"] as? Double }
            #expect(!streets.isEmpty && distances.count == streets.count)
            #expect(distances == distances.sorted() && distances.allSatisfy { $0 <= 150 })
            #expect(streets.first?["id"] as? Int64 == hafen.street.id && distances.first! < 1)
            let sea = try await client.sendJSON(.get, "/v1/streets?near=0,0&radiusM=2000")
            #expect(sea.status == 200 && PathReviewApp.streets(sea.json).isEmpty)
        }
    }

    @Test("one street: GeoJSON MultiLineString in [lng, lat], its ways and box, the attribution; unknown ids are 404")
    func show() async throws {
        try await PathReviewApp.with { client, server in
            let hafen = try #require(server.roads.streets.search("hafenstraße", offset: 0, limit: 1).entries.first)
            let reply = try await client.sendJSON(.get, "/v1/streets/\(hafen.street.id)")
            #expect(reply.status == 200 && reply.json["name"] as? String == "Hafenstraße")
            let geometry = try #require(reply.json["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "MultiLineString")
            let lines = try #require(geometry["coordinates"] as? [[[Double]]])
            #expect(lines.count == hafen.street.edges.count)
            let bbox = try #require(reply.json["bbox"] as? [Double])
            for position in lines.joined() {
                #expect(position[0] >= bbox[0] && position[0] <= bbox[2] && position[1] >= bbox[1] && position[1] <= bbox[3])
                #expect(position[0] > 15 && position[0] < 16 && position[1] > 48 && position[1] < 49, "[lng, lat] in Krems")
            }
            #expect((reply.json["lengthMetres"] as? Double ?? 0) > 100)
            #expect((reply.json["attribution"] as? String)?.contains("OpenStreetMap") == true)
            for id in ["1", "abc", "99999999999999999999", "-5"] {
                let unknown = try await client.sendJSON(.get, "/v1/streets/\(id)")
                #expect(unknown.status == 404 && unknown.json["code"] as? String == "unknown-street", "\(id)")
            }
        }
    }

    @Test("bad queries are 422 with every field at once, never a crash: none or both of q and near, NaN, a world-wide radius, limits, cursors")
    func badInput() async throws {
        try await PathReviewApp.with { client, _ in
            let cases: [(String, Set<String>)] = [
                ("/v1/streets", ["q"]),
                ("/v1/streets?q=a&near=48.41,15.6", ["near"]),
                ("/v1/streets?near=nan,15.6", ["near"]),
                ("/v1/streets?near=48.41,inf&radiusM=nan", ["near", "radiusM"]),
                ("/v1/streets?near=91,15.6", ["near"]),
                ("/v1/streets?near=48.41", ["near"]),
                ("/v1/streets?near=48.41,15.6&radiusM=20000000", ["radiusM"]),
                ("/v1/streets?near=48.41,15.6&radiusM=0", ["radiusM"]),
                ("/v1/streets?q=%20%20", ["q"]),
                ("/v1/streets?q=\(String(repeating: "a", count: 101))", ["q"]),
                ("/v1/streets?q=gasse&limit=0", ["limit"]),
                ("/v1/streets?q=gasse&limit=101", ["limit"]),
                ("/v1/streets?q=gasse&limit=2.5", ["limit"]),
                ("/v1/streets?q=gasse&cursor=not-a-cursor", ["cursor"]),
                ("/v1/streets?q=gasse&limit=0&cursor=x&near=1", ["near", "limit", "cursor"]),
            ]
            for (uri, fields) in cases {
                let reply = try await client.sendJSON(.get, uri)
                #expect(reply.status == 422, "\(uri)")
                #expect(reply.headers[.contentType]?.hasPrefix("application/problem+json") == true, "\(uri)")
                #expect(Set(PathReviewApp.fields(reply.json)) == fields, "\(uri): \(PathReviewApp.fields(reply.json))")
            }
            let far = try await client.sendJSON(.get, "/v1/streets?q=gasse&cursor=\(StreetRoutesTests.cursor(offset: 5_000))")
            #expect(far.status == 200 && PathReviewApp.streets(far.json).isEmpty && far.json["nextCursor"] == nil)
        }
    }

    static func cursor(offset: Int64) -> String {
        ServiceKit.PageCursor(key: offset, id: StreetRoutes.cursorID).encoded
    }
}
