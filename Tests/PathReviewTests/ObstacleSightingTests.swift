import Contracts
import EventSourcing
import Foundation
import GRDB
import HummingbirdTesting
import Logging
import Messaging
import PostgresNIO
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// Obstacles kept current by cyclists saying "gone" and by rides (record-trip's published `ObstacleConfirmed`).
@Suite("path-review: gone reports and ride sightings")
struct ObstacleSightingTests {
    @Test("two different cyclists' gone reports resolve an obstacle; one's repeat counts once; a confirmation in between starts over",
          arguments: TestBackend.enabled)
    func gone(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let (first, second, third) = (try await TokenForge.token(UUID()), try await TokenForge.token(UUID()), try await TokenForge.token(UUID()))
            let id = try await UpkeepRoutesTests.approved(client, server, moderator: moderator)
            let shown = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history", token: moderator)
            let obstacle = try #require((shown.json["entries"] as? [[String: Any]])?.first { $0["type"] as? String == "obstacle-confirmed" }?["obstacleId"] as? String)
            let url = "/v1/paths/\(id)/obstacles/\(obstacle)/gone"
            #expect(try await client.sendJSON(.post, url).status == 401)
            #expect(try await client.sendJSON(.post, url, token: first).json["openObstacles"] as? Int == 1)
            #expect(try await client.sendJSON(.post, url, token: first).json["openObstacles"] as? Int == 1, "one cyclist counts once")
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles/\(obstacle)/confirm", token: third).status == 200)
            #expect(try await client.sendJSON(.post, url, token: second).json["openObstacles"] as? Int == 1, "the confirmation started over")
            let resolved = try await client.sendJSON(.post, url, token: first)
            #expect(resolved.status == 200 && resolved.json["openObstacles"] as? Int == 0, "\(resolved.json)")
            #expect(try await client.sendJSON(.post, url, token: third).json["code"] as? String == "unknown-obstacle")
            let history = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history", token: moderator)
            let last = try #require((history.json["entries"] as? [[String: Any]])?.last)
            #expect(last["type"] as? String == "obstacle-resolved" && last["actor"] as? String == "cyclist" && last["resolution"] as? String == "resolved")
            #expect(try await UpkeepRoutesTests.published(client).last == "PathObstacleResolved")
        }
    }

    @Test("the pure rule: a ride sighting counts once per id, joins an obstacle of its type within 15 m, opens one otherwise")
    func rideSightingRule() throws {
        let t0 = Date(timeIntervalSince1970: 1_790_000_000)
        let author = UUID(), moderator = UUID(), id = UUID()
        let content = PathDraftAggregateTests.content()
        var state = PathDraftAggregate.initialState
        for command: PathDraftCommand in [.create(draftId: id, author: author, content: content, at: t0), .submit(author: author, at: t0),
                                          .claim(moderator: moderator, at: t0, duration: 600),
                                          .decide(moderator: moderator, outcome: .approve, note: nil, at: t0)] {
            state = try PathDraftAggregate.decide(command, state).reduce(state, PathDraftAggregate.apply)
        }
        let point = try #require(content.route.coordinates.first)
        let sightingId = UUID()
        let seen = try PathDraftAggregate.decide(.rideSighting(sightingId: sightingId, type: .pothole, latitude: point[0], longitude: point[1],
                                                               at: t0 + 60), state)
        #expect(seen.count == 2)
        guard case .obstacleSighted(let sighted)? = seen.first, case .obstacleConfirmed(let confirmed)? = seen.last else {
            Issue.record("expected the sighting, then its confirmation: \(seen)")
            return
        }
        #expect(sighted.sightingId == sightingId && sighted.obstacleId == confirmed.obstacleId && confirmed.sightings >= 1)
        state = seen.reduce(state, PathDraftAggregate.apply)
        #expect(try PathDraftAggregate.decide(.rideSighting(sightingId: sightingId, type: .pothole, latitude: point[0], longitude: point[1],
                                                            at: t0 + 120), state).isEmpty, "a redelivered sighting counts once")
        let again = try PathDraftAggregate.decide(.rideSighting(sightingId: UUID(), type: .pothole, latitude: point[0] + 5 / 111_195,
                                                                longitude: point[1], at: t0 + 180), state)
        guard case .obstacleConfirmed(let joined)? = again.last else { Issue.record("\(again)"); return }
        #expect(joined.obstacleId == confirmed.obstacleId && joined.sightings == confirmed.sightings + 1, "5 m away, same type: the same obstacle")
        let bump = try PathDraftAggregate.decide(.rideSighting(sightingId: UUID(), type: .bump, latitude: point[0], longitude: point[1],
                                                               at: t0 + 240), state)
        guard case .obstacleConfirmed(let other)? = bump.last else { Issue.record("\(bump)"); return }
        #expect(other.obstacleId != confirmed.obstacleId && other.sightings == 1)
    }

    @Test("rides' obstacles from waypoint.trips: on the path's node pair or near it, counted once also when delivered twice; off the network ignored",
          arguments: TestBackend.enabled)
    func rides(backend: TestBackend) async throws {
        try await RideConsumerTests.withRecordTrip { recordTrip, url in
            try await PathReviewApp.with(backend, endpoints: ["record-trip": url]) { client, server, _ in
                let storage = server.storage
                let moderator = try await TokenForge.token(UUID(), .moderator)
                let id = try await UpkeepRoutesTests.approved(client, server, moderator: moderator)
                try await server.approvedNetwork.catchUp()
                let state = try await server.drafts.approvedPath(try #require(UUID(uuidString: id)))
                let route = try #require(state.content?.route)
                let (a, b) = (route.nodeIDs[2], route.nodeIDs[3])
                let (mid, far) = (route.coordinates[2], route.coordinates[0])
                let onPair = ObstacleConfirmed(obstacleId: UUID(), osmNodes: [b, a], latitude: mid[0], longitude: mid[1], kind: .bump,
                                               severity: 0.7, detected: true, confirmedAt: Date())
                let byPosition = ObstacleConfirmed(obstacleId: UUID(), osmNodes: [], latitude: far[0], longitude: far[1], kind: .roughSurface,
                                                   severity: 0.4, detected: true, confirmedAt: Date())
                let elsewhere = ObstacleConfirmed(obstacleId: UUID(), osmNodes: [], latitude: 43.73, longitude: 7.42, kind: .pothole,
                                                  severity: 0.9, detected: false, confirmedAt: Date())
                let events = try [onPair, onPair, byPosition, elsewhere].map {
                    try NewEvent(eventType: ObstacleConfirmed.eventType, schemaVersion: ObstacleConfirmed.schemaVersion, encoding: $0)
                }
                _ = try await recordTrip.store.append(events, to: "trip-\(UUID())", expectedVersion: .any)
                let worker = RideSightingWorker(drafts: server.drafts, lookup: server.networkLookup, store: RideSubmissionStores.open(storage),
                                                network: server.approvedNetwork, logger: PathReviewApp.quiet)
                // The server runs its own worker too: whichever counts a sighting, all three distinct ones end up done.
                let done = Self.doneSightings(storage)
                try await eventually(timeout: .seconds(30), interval: .milliseconds(100)) {
                    try await worker.applyPending()
                    return try await done() == 3
                }
                let after = try await server.drafts.approvedPath(try #require(UUID(uuidString: id)))
                let obstacles = try #require(after.upkeep?.obstacles)
                #expect(obstacles.filter { $0.type == .bump }.count == 1 && obstacles.filter { $0.type == .other }.count == 1,
                        "\(obstacles.map(\.type))")
                let log = try await storage.store.readStream(PathDraftAggregate.streamID(try #require(UUID(uuidString: id))))
                #expect(log.filter { $0.eventType == PathObstacleSighted.eventType }.count == 2)
                #expect(try await worker.applyPending() == 0)
                #expect(try await done() == 3, "the redelivery is one sighting")
            }
        }
    }

    /// How many stored ride sightings were counted, read straight from the consumer's table.
    static func doneSightings(_ storage: ServiceStorage) -> @Sendable () async throws -> Int {
        typealias Count = @Sendable () async throws -> Int
        return storage.backend(sqlite: { (database: SQLiteServiceDatabase) -> Count in
            let count: Count = {
                try await database.read { db -> Int in try Int.fetchOne(db, sql: "SELECT count(*) FROM ride_sightings WHERE done = 1") ?? 0 }
            }
            return count
        }, postgres: { (database: PostgresServiceDatabase) -> Count in
            let count: Count = {
                var total = 0
                let rows = try await database.client.query("SELECT count(*)::bigint FROM ride_sightings WHERE done", logger: database.logger)
                for try await value in rows.decode(Int.self) { total = value }
                return total
            }
            return count
        })
    }
}
