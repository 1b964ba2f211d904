import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import ServiceTesting
import Testing
@testable import PathReview

/// The `approved_paths` read model and ``ApprovedNetworkLookup`` on both backends: events appended to the log by hand
/// (the upkeep half emits them in production), expectations from an independent flat-earth distance, rebuild = live.
@Suite("Approved network lookup")
struct ApprovedNetworkLookupTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    /// Appends `payload` to the path's draft stream, as approval and upkeep do.
    static func append<T: IntegrationEvent>(_ payload: T, path: UUID, _ server: PathReviewServer) async throws {
        let event = try NewEvent(eventType: T.eventType, schemaVersion: T.schemaVersion, encoding: payload)
        _ = try await AnyEventStore(server.storage.store).append([event], to: "path-draft-\(path.uuidString.lowercased())", expectedVersion: .any)
    }

    static func approve(_ id: UUID, nodes: [Int64], _ geometry: [[Double]], _ server: PathReviewServer) async throws {
        try await append(PathApproved(pathId: id, name: "p", osmNodes: nodes, geometry: geometry, lengthM: 100, condition: "optimal",
                                      details: PathApprovedDetails(), approvedAt: t0), path: id, server)
    }

    static func confirm(_ obstacle: UUID, on path: UUID, at seconds: Double, _ server: PathReviewServer) async throws {
        try await append(PathObstacleConfirmed(obstacleId: obstacle, pathId: path, osmNodes: [1], latitude: 48.41, longitude: 15.6,
                                               type: "fallen-tree", confidence: 0.5, sightings: 1, confirmedAt: t0 + seconds), path: path, server)
    }

    /// Metres between a point and a straight east–west or north–south line, on a local flat map (independent of Shared/Geo).
    static func flat(_ lat: Double, _ lng: Double, _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let k = 6_371_008.8 * Double.pi / 180, c = cos(lat * .pi / 180)
        let (px, py, ax, ay, bx, by) = (lng * k * c, lat * k, a.1 * k * c, a.0 * k, b.1 * k * c, b.0 * k)
        let (dx, dy) = (bx - ax, by - ay)
        let u = max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
        return hypot(px - (ax + u * dx), py - (ay + u * dy))
    }

    @Test("segments either way, near nearest first within the radius, obstacles by age (upserted, resolved, gone with a retired path); rebuild = live",
          arguments: TestBackend.enabled)
    func lookup(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { _, server in
            let (a, b, c) = (UUID(), UUID(), UUID())
            try await Self.approve(a, nodes: [1, 2, 3], [[15.60, 48.41], [15.605, 48.41], [15.61, 48.41]], server)
            try await Self.approve(b, nodes: [3, 4], [[15.61, 48.41], [15.61, 48.42]], server)
            try await Self.approve(c, nodes: [2, 3], [[7.42, 43.73], [7.43, 43.73]], server)
            let (o1, o2, o3, stray) = (UUID(), UUID(), UUID(), UUID())
            try await Self.confirm(o1, on: a, at: 0, server)
            try await Self.confirm(o2, on: a, at: 10, server)
            try await Self.confirm(o3, on: b, at: 5, server)
            try await Self.confirm(stray, on: UUID(), at: 1, server)
            try await Self.confirm(o1, on: a, at: 20, server)
            try await Self.append(PathObstacleResolved(obstacleId: o2, pathId: a, resolution: .resolved, resolvedAt: Self.t0 + 30), path: a, server)
            try await Self.append(PathStatusChanged(pathId: a, condition: "medium", source: .reports, changedAt: Self.t0 + 31), path: a, server)
            try await server.approvedNetwork.catchUp()
            let lookup = server.networkLookup
            let sorted = { (ids: [UUID]) in ids.sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() } }
            #expect(try await lookup.paths(onSegment: 3, 2) == sorted([a, c]))
            #expect(try await lookup.paths(onSegment: 3, 4) == [b])
            #expect(try await lookup.paths(onSegment: 1, 3).isEmpty, "not consecutive")

            let (lat, lng) = (48.415, 15.6105)
            let (da, db) = (Self.flat(lat, lng, (48.41, 15.60), (48.41, 15.61)), Self.flat(lat, lng, (48.41, 15.61), (48.42, 15.61)))
            #expect(db < 200 && da > 200 && da < 1_000, "oracle: \(da) \(db)")
            #expect(try await lookup.paths(nearLatitude: lat, longitude: lng, radiusMetres: 200, limit: 10) == [b])
            #expect(try await lookup.paths(nearLatitude: lat, longitude: lng, radiusMetres: 1_000, limit: 10) == [b, a])
            #expect(try await lookup.paths(nearLatitude: lat, longitude: lng, radiusMetres: 1_000, limit: 1) == [b])

            let refs = try await lookup.obstacles(lastConfirmedBefore: Self.t0 + 100, limit: 10)
            #expect(refs.map(\.obstacleId) == [o3, o1] && refs.map(\.pathId) == [b, a], "stray obstacle of an unknown path ignored")
            #expect(refs.last?.lastConfirmedAt == Self.t0 + 20)
            #expect(try await lookup.obstacles(lastConfirmedBefore: Self.t0 + 10, limit: 10).map(\.obstacleId) == [o3])

            try await Self.append(PathRetired(pathId: b, retiredAt: Self.t0 + 40), path: b, server)
            try await server.approvedNetwork.catchUp()
            #expect(try await lookup.paths(onSegment: 4, 3).isEmpty)
            #expect(try await lookup.paths(nearLatitude: lat, longitude: lng, radiusMetres: 1_000, limit: 10) == [a])
            let live = try await lookup.obstacles(lastConfirmedBefore: Self.t0 + 100, limit: 10)
            #expect(live.map(\.obstacleId) == [o1])

            try await server.approvedNetwork.rebuild()
            #expect(try await lookup.obstacles(lastConfirmedBefore: Self.t0 + 100, limit: 10) == live, "rebuild = live")
            #expect(try await lookup.paths(onSegment: 2, 3) == sorted([a, c]))
            #expect(try await lookup.paths(nearLatitude: lat, longitude: lng, radiusMetres: 1_000, limit: 10) == [a])
        }
    }
}

/// `GET /v1/paths/{id}` over HTTP on both backends.
@Suite("Approved path over HTTP")
struct ApprovedPathRoutesTests {
    @Test("an approved path is a GeoJSON Feature with its condition and open obstacles, no token needed; unknown, malformed and retired ids are 404",
          arguments: TestBackend.enabled)
    func show(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let (path, obstacle) = (UUID(), UUID())
            try await ApprovedNetworkLookupTests.approve(path, nodes: [1, 2], [[15.60, 48.41], [15.61, 48.41]], server)
            try await ApprovedNetworkLookupTests.confirm(obstacle, on: path, at: 5, server)
            try await ApprovedNetworkLookupTests.append(PathStatusChanged(pathId: path, condition: "medium", source: .moderator,
                                                                          changedAt: ApprovedNetworkLookupTests.t0 + 6), path: path, server)
            try await server.approvedNetwork.catchUp()
            let shown = try await client.sendJSON(.get, "/v1/paths/\(path)")
            #expect(shown.status == 200, "\(shown.json)")
            #expect(shown.json["type"] as? String == "Feature" && (shown.json["id"] as? String)?.lowercased() == path.uuidString.lowercased())
            #expect((shown.json["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] == [[15.60, 48.41], [15.61, 48.41]])
            let properties = shown.json["properties"] as? [String: Any] ?? [:]
            #expect(properties["condition"] as? String == "medium" && properties["obstacleCount"] as? Int == 1)
            #expect(((properties["obstacles"] as? [[String: Any]])?.first?["sightings"]) as? Int == 1)
            #expect((shown.json["attribution"] as? String)?.contains("OpenStreetMap") == true)
            #expect(try await client.sendJSON(.get, "/v1/paths/\(UUID())").status == 404)
            #expect(try await client.sendJSON(.get, "/v1/paths/not-a-uuid").json["code"] as? String == "unknown-path")
            try await ApprovedNetworkLookupTests.append(PathRetired(pathId: path, retiredAt: ApprovedNetworkLookupTests.t0 + 9), path: path, server)
            try await server.approvedNetwork.catchUp()
            #expect(try await client.sendJSON(.get, "/v1/paths/\(path)").status == 404, "retired")
        }
    }
}
