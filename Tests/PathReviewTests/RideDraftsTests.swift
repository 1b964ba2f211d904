import Contracts
import Foundation
import Logging
@testable import PathReview
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// Drafts from rides on the Krems extract. The rides are synthetic with known ground truth: the node sequence of a
/// whole street as the planner resolves it (``PathDraftPlannerTests`` checks that against the ways), cut into two
/// pieces with a gap of dropped nodes. Oracles independent of the resolver: every consecutive node pair of the draft's
/// route must be consecutive on a way of the graph (the brute-force pair set of ``PathDraftPlannerTests``), and the
/// route must start and end at the ride's first and last nodes.
@Suite("path-review: drafts from rides")
struct RideDraftsTests {
    static let resolver = RideDraftResolver(roads: PathReviewTestNetwork.roads)

    /// A ride along Hafenstraße in two pieces, `gap` nodes left out between them.
    static func ride(rider: UUID = UUID(), gap: Int = 3, condition: String? = "optimal") throws -> RideSubmittedAsPathDraft {
        let hafen = try PathDraftPlannerTests.street("Hafenstraße")
        let (route, _) = try PathDraftPlannerTests.planner.plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil)], obstacles: [])
        let nodes = route.nodeIDs
        try #require(nodes.count >= gap + 4)
        let cut = nodes.count / 2
        let pieces = [Array(nodes[..<cut]), Array(nodes[(cut + gap)...])]
        let geometry = pieces.map { $0.map { _ in [15.6, 48.4] } }
        return RideSubmittedAsPathDraft(draftId: UUID(), riderId: rider, pieces: pieces, geometry: geometry, lengthM: route.lengthMetres,
                                        condition: condition, submittedAt: Date(timeIntervalSince1970: 1_795_000_000))
    }

    static func fieldCodes(_ body: () throws -> Void) -> [String: String] { PathDraftPlannerTests.fields(body) }

    @Test("two pieces with a gap are joined along the network, ends kept, condition and default name taken")
    func joinsPieces() throws {
        let ride = try Self.ride()
        let content = try Self.resolver.content(of: ride)
        PathDraftPlannerTests.expectOnNetwork(content.route)
        #expect(content.route.nodeIDs.first == ride.pieces[0].first && content.route.nodeIDs.last == ride.pieces[1].last)
        #expect(Set(ride.pieces.joined()).isSubset(of: Set(content.route.nodeIDs)))
        #expect(content.condition == .optimal && content.obstacles.isEmpty)
        #expect(content.name == "Ride of 2026-11-18")
        #expect(try Self.resolver.content(of: Self.ride(condition: nil)).condition == RideDraftResolver.defaultCondition)
    }

    @Test("a ride the network cannot place lists why: unknown nodes, short pieces, no pieces, a bad condition")
    func unplaceable() throws {
        var ride = try Self.ride()
        ride.pieces[0][1] = -42
        ride.pieces[1] = [ride.pieces[1][0]]
        ride.condition = "splendid"
        let codes = Self.fieldCodes { _ = try Self.resolver.content(of: ride) }
        #expect(codes["pieces[0][1]"] == "unknown-node")
        #expect(codes["pieces[1]"] == "too-short")
        #expect(codes["condition"] != nil)
        ride.pieces = []
        #expect(Self.fieldCodes { _ = try Self.resolver.content(of: ride) }["pieces"] != nil)
    }

    @Test("accepting a ride makes the rider's private draft once; a redelivery and an unplaceable ride make none",
          arguments: TestBackend.enabled)
    func accept(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let rider = UUID()
            let rides = RideDrafts(drafts: server.drafts, resolver: Self.resolver, logger: PathReviewApp.quiet)
            let ride = try Self.ride(rider: rider)
            #expect(try await rides.accept(ride) == .created)
            #expect(try await rides.accept(ride) == .alreadyExists)
            var lost = try Self.ride(rider: rider)
            lost.pieces[0][0] = -1
            #expect(try await rides.accept(lost) == .unplaceable(["pieces[0][0]: unknown-node"]))
            try await server.draftList.catchUp()
            let token = try await TokenForge.token(rider)
            let listed = PathReviewApp.list(try await client.sendJSON(.get, "/v1/paths/drafts", token: token).json)
            #expect(listed.map { $0["id"] as? String } == [ride.draftId.uuidString.lowercased()])
            #expect(listed.first?["name"] as? String == "Ride of 2026-11-18")
            let other = try await TokenForge.token(UUID())
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(ride.draftId)", token: other).status == 404)
        }
    }
}
