import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import Kafka
import Logging
import Messaging
@testable import Navigation
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// The community layer end to end: `waypoint.paths` events (from a path-review stand-in) change the routes an
/// instance answers within seconds, with no restart — on the embedded feed (both backends) and on Kafka.
@Suite("navigation: the community layer")
struct CommunityLayerTests {
    static let query = "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.east)&alternatives=2"

    /// The best route's distance, its paths' ids and its obstacles' ids.
    static func best(_ client: any TestClientProtocol) async throws -> (distance: Double, paths: [String], obstacles: [String], statuses: [String: Double]) {
        let reply = try await client.sendJSON(.get, query)
        let route = try #require((reply.json["routes"] as? [[String: Any]])?.first, "\(reply.json)")
        let score = route["score"] as? [String: Any] ?? [:]
        return (route["distance"] as? Double ?? 0, (route["paths"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String },
                (route["obstacles"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String },
                score["metresByPathStatus"] as? [String: Double] ?? [:])
    }

    /// The OSM nodes of the second-ranked route now (the one an approved path along it will make first).
    static func secondRouteNodes(_ server: NavigationServer) throws -> [Int64] {
        let points = [KremsPoints.station, KremsPoints.east].map { RouteQuery.point($0)! }
        let plan = try server.planner.plan(RouteQuery(points: points, alternatives: 2))
        try #require(plan.routes.count >= 2)
        return plan.routes[1].legs[0].route.nodeIDs
    }

    static func new<Event: IntegrationEvent>(_ event: Event) throws -> NewEvent {
        try NewEvent(eventType: Event.eventType, schemaVersion: Event.schemaVersion, encoding: event)
    }

    static func approved(_ id: UUID, nodes: [Int64], condition: String = "optimal") -> PathApproved {
        PathApproved(pathId: id, name: "Community path", osmNodes: nodes, geometry: [], lengthM: 1_000, condition: condition,
                     details: PathApprovedDetails(), approvedAt: Date())
    }

    /// Approve a path along the second route: it becomes the best, named in `paths`, with its metres `optimal`; an
    /// obstacle on it is listed with its position; retire it: the first route is back.
    /// `within`: how long each change may take to arrive (a Kafka consumer group joins in seconds on a loaded machine).
    static func switchAndBack(_ client: any TestClientProtocol, publish: @escaping @Sendable (NewEvent, String) async throws -> Void,
                              server: NavigationServer, within: Duration = .seconds(30)) async throws {
        let before = try await best(client)
        #expect(before.paths.isEmpty)
        let nodes = try secondRouteNodes(server)
        let path = UUID()
        try await publish(try Self.new(approved(path, nodes: nodes)), "path-draft-\(path.uuidString.lowercased())")
        let switched = try await eventually(timeout: within) { try await best(client).paths.contains(path.uuidString.lowercased()) }
        #expect(switched, "the route takes the approved path")
        let after = try await best(client)
        #expect((after.statuses["optimal"] ?? 0) > 100)
        #expect(after.distance != before.distance)
        let obstacle = UUID()
        try await publish(try Self.new(PathObstacleConfirmed(obstacleId: obstacle, pathId: path, osmNodes: Array(nodes[1...2]), latitude: 48.41,
                                                             longitude: 15.61, type: "pothole", confidence: 0.5, sightings: 2, confirmedAt: Date())),
                          "path-draft-\(path.uuidString.lowercased())")
        let listed = try await eventually(timeout: within) { try await best(client).obstacles.contains(obstacle.uuidString.lowercased()) }
        #expect(listed, "the obstacle on the path is listed on the route")
        try await publish(try Self.new(PathRetired(pathId: path, retiredAt: Date())), "path-draft-\(path.uuidString.lowercased())")
        let back = try await eventually(timeout: within) { try await best(client).paths.isEmpty }
        #expect(back, "retired: the route leaves the path")
        let restored = try await best(client)
        #expect(abs(restored.distance - before.distance) < 0.5)
        #expect(restored.obstacles.isEmpty, "a retired path's obstacles go with it")
    }

    @Test("on the embedded feed: a route switches to a newly approved path and back when it is retired", arguments: TestBackend.enabled)
    func embedded(_ backend: TestBackend) async throws {
        try await NavigationApp.withFeeds { feeds in
            try await NavigationApp.serve(backend, feeds: feeds) { client, server in
                try await Self.switchAndBack(client, publish: { event, stream in
                    _ = try await feeds.paths.storage.store.append([event], to: stream, expectedVersion: .any)
                }, server: server)
            }
        }
    }

    @Test("on Kafka: the same through waypoint.paths on librdkafka's mock cluster")
    func kafka() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let directory = TemporaryDirectory("waypoint-paths-producer")
        defer { directory.remove() }
        let producerRuntime = try TestBackend.sqlite.runtime("path-review", in: directory, kafkaBrokers: cluster.bootstrapServers,
                                                             kafkaProperties: KafkaMockCluster.clientProperties)
        try await ServiceStorage.withOpen(producerRuntime, logger: NavigationApp.quiet) { producer in
            let relays = try producer.publishing(topic: Topic.paths.name, logger: NavigationApp.quiet)
            try await NavigationApp.withFeeds { feeds in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for relay in relays { group.addTask { try await relay.run() } }
                    try await NavigationApp.serve(.sqlite, feeds: feeds, kafkaBrokers: cluster.bootstrapServers) { client, server in
                        try await Self.switchAndBack(client, publish: { event, stream in
                            _ = try await producer.store.append([event], to: stream, expectedVersion: .any)
                        }, server: server, within: .seconds(90))
                    }
                    group.cancelAll()
                }
            }
        }
    }

    @Test("the layer's constants: a marked street is avoided, its mark lifted restores the route; conditions change factors")
    func marksAndConditions() async throws {
        try await NavigationApp.with { client, server, feeds in
            let before = try await Self.best(client)
            let points = [KremsPoints.station, KremsPoints.east].map { RouteQuery.point($0)! }
            let nodes = try server.planner.plan(RouteQuery(points: points)).routes[0].legs[0].route.nodeIDs
            try await feeds.paths.publish(StreetCompatibilityChanged(streetId: 1, osmNodes: [nodes], compatible: false, changedAt: Date()), on: "street-1")
            let avoided = try await eventually(timeout: .seconds(30)) { try await Self.best(client).distance != before.distance }
            #expect(avoided, "the marked street (×3) is avoided")
            try await feeds.paths.publish(StreetCompatibilityChanged(streetId: 1, osmNodes: [nodes], compatible: true, changedAt: Date()), on: "street-1")
            let restored = try await eventually(timeout: .seconds(30)) { abs(try await Self.best(client).distance - before.distance) < 0.5 }
            #expect(restored)
            let path = UUID()
            try await feeds.paths.publish(Self.approved(path, nodes: nodes, condition: "medium"), on: "path-draft-\(path)")
            let medium = try await eventually(timeout: .seconds(30)) { (try await Self.best(client).statuses["medium"] ?? 0) > 0 }
            #expect(medium)
            try await feeds.paths.publish(PathStatusChanged(pathId: path, condition: "requires-maintenance", source: .reports, changedAt: Date()),
                                          on: "path-draft-\(path)")
            let worse = try await eventually(timeout: .seconds(30)) { try await Self.best(client).statuses["medium"] == nil }
            #expect(worse, "a condition change reaches the layer")
            #expect(server.overlay.current.index.counts.paths == 1)
        }
    }
}

/// Navigation scales out by instances over one store (PostgreSQL): each instance has its own graph and its own copy of
/// the community layer, refreshed from the shared tables, and sessions live in the shared log.
@Suite("navigation: two instances")
struct ScaleOutTests {
    @Test("two instances on one PostgreSQL database both see an approval, and either continues a session the other started",
          .enabled(if: TestBackend.enabled.contains(.postgres)))
    func twoInstances() async throws {
        try await NavigationApp.withFeeds { feeds in
            let directory = TemporaryDirectory("waypoint-navigation-instances")
            defer { directory.remove() }
            let schema = TestBackend.freshSchema("navigation_instances")
            let first = try TestBackend.postgres.runtime("navigation", in: directory, schema: schema)
            let second = try TestBackend.postgres.runtime("navigation", in: TemporaryDirectory("waypoint-navigation-instance-2"), schema: schema)
            try await NavigationApp.serve(first, feeds: feeds) { a, serverA in
                try await NavigationApp.serve(second, feeds: feeds) { b, serverB in
                    let path = UUID()
                    let nodes = try CommunityLayerTests.secondRouteNodes(serverA)
                    try await feeds.paths.publish(CommunityLayerTests.approved(path, nodes: nodes), on: "path-draft-\(path)")
                    for client in [a, b] {
                        let seen = try await eventually(timeout: .seconds(30)) { try await CommunityLayerTests.best(client).paths.contains(path.uuidString.lowercased()) }
                        #expect(seen, "every instance routes over the approved path")
                    }
                    #expect(serverA.overlay.current.version == serverB.overlay.current.version)
                    let token = try await TokenForge.token(UUID())
                    let started = try await a.sendJSON(.post, "/v1/navigation/sessions", json: SessionTests.start, token: token)
                    let id = try #require(started.json["id"] as? String)
                    let geometry = try #require((started.json["route"] as? [String: Any])?["geometry"] as? String)
                    let fixes = try RideAlongRoute.fixes(geometry, start: Date().addingTimeInterval(-3_600), to: 300)
                    // Alternate instances fix by fix, as a load balancer may.
                    for (index, fix) in fixes.enumerated() {
                        let client = index % 2 == 0 ? b : a
                        let reply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body([fix]), token: token)
                        #expect(reply.status == 200, "\(reply.json)")
                    }
                    let onA = try await a.sendJSON(.get, "/v1/navigation/sessions/\(id)", token: token)
                    let onB = try await b.sendJSON(.get, "/v1/navigation/sessions/\(id)", token: token)
                    #expect(onA.json["fixes"] as? Int == fixes.count && onB.json["fixes"] as? Int == fixes.count, "no acknowledged fix is lost")
                    #expect(((onA.json["progress"] as? [String: Any])?["alongM"] as? Double ?? 0) > 280)
                }
            }
        }
    }
}
