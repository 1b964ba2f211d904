import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// A street's compatibility now (issue 20 points 1 and 6): moderators' marks and approved paths along it, in listings,
/// in drafts and on `waypoint.paths`.
@Suite("path-review: streets marked incompatible and covered by approved paths")
struct StreetMarksTests {
    static func hafen(_ server: PathReviewServer) throws -> StreetCatalog.Entry {
        try #require(server.roads.streets.search("Hafenstraße", offset: 0, limit: 1).entries.first)
    }

    static func reasons(_ json: [String: Any]) -> [String] { json["incompatibleReasons"] as? [String] ?? [] }

    @Test("a moderator marks a street (idempotent), listings and drafts see it, the mark is published and lifted; cyclists 403; unknown 404",
          arguments: TestBackend.enabled)
    func marks(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let street = try Self.hafen(server).street
            let moderator = try await TokenForge.token(UUID(), .moderator), cyclist = try await TokenForge.token(UUID())
            #expect(try await client.sendJSON(.put, "/v1/streets/\(street.id)/incompatible", token: cyclist).status == 403)
            #expect(try await client.sendJSON(.put, "/v1/streets/\(street.id)/incompatible").status == 401)
            #expect(try await client.sendJSON(.put, "/v1/streets/1/incompatible", token: moderator).status == 404)

            let marked = try await client.sendJSON(.put, "/v1/streets/\(street.id)/incompatible", token: moderator)
            #expect(marked.status == 200 && marked.json["compatible"] as? Bool == false && Self.reasons(marked.json) == ["marked-incompatible"],
                    "\(marked.json)")
            #expect(try await client.sendJSON(.put, "/v1/streets/\(street.id)/incompatible", token: moderator).status == 200)
            try await server.approvedNetwork.catchUp()
            #expect(Self.reasons(try await client.sendJSON(.get, "/v1/streets/\(street.id)").json) == ["marked-incompatible"])
            let listed = PathReviewApp.streets(try await client.sendJSON(.get, "/v1/streets?q=\(PathReviewApp.query(street.name))&limit=100").json)
            #expect(listed.first { $0["id"] as? Int64 == street.id || ($0["id"] as? Int).map(Int64.init) == street.id }
                .map(Self.reasons) == ["marked-incompatible"])
            let refused = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server), token: cyclist)
            #expect(refused.status == 422 && (refused.json["fieldErrors"] as? [[String: Any]])?.first?["code"] as? String == "incompatible-street",
                    "\(refused.json)")

            let lifted = try await client.sendJSON(.delete, "/v1/streets/\(street.id)/incompatible", token: moderator)
            #expect(lifted.status == 200 && lifted.json["compatible"] as? Bool == true)
            #expect(try await client.sendJSON(.delete, "/v1/streets/\(street.id)/incompatible", token: moderator).status == 200, "idempotent")
            try await server.approvedNetwork.catchUp()
            #expect(try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server), token: cyclist).status == 201)

            let marks = try await server.storage.store.readStream(StreetMarkAggregate.streamID(street.id)).map { try $0.decode(StreetCompatibilityChanged.self) }
            #expect(marks.map(\.compatible) == [false, true], "one event per change, none for a repeat")
            #expect(marks.first?.osmNodes == server.roads.streets.osmNodes(of: street) && marks.first?.osmNodes.count == street.edges.count)
            let feed = try await client.sendJSON(.get, "/v1/internal/events?after=0&limit=1000", token: PathReviewApp.internalToken)
            #expect((feed.json["events"] as? [[String: Any]] ?? []).filter { $0["eventType"] as? String == StreetCompatibilityChanged.eventType }.count == 2)
        }
    }

    @Test("a street an approved path runs along is covered: listed so, no second draft on it; retiring the path frees it; rebuild = live",
          arguments: TestBackend.enabled)
    func covered(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let street = try Self.hafen(server).street
            let author = try await TokenForge.token(UUID()), moderator = try await TokenForge.token(UUID(), .moderator)
            #expect(Self.reasons(try await client.sendJSON(.get, "/v1/streets/\(street.id)").json).isEmpty)
            let id = try await AuthorLifecycleTests.decided(client, server, author: author, moderator: moderator, name: "Hafen loop", outcome: "approve")
            try await server.approvedNetwork.catchUp()
            #expect(Self.reasons(try await client.sendJSON(.get, "/v1/streets/\(street.id)").json) == ["covered-by-path"])
            let again = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server), token: author)
            #expect(again.status == 422, "\(again.json)")

            let segments = server.roads.streets.representativeSegments(of: street)
            let live = try await server.streetStatus.overlay.coveredSegments(segments)
            let share = server.streetStatus.coveredShare(of: street, segments, live)
            #expect(share >= StreetStatus.coveredShare && !live.isEmpty, "share \(share): the whole street's route runs along most of it")
            try await server.approvedNetwork.rebuild()
            #expect(try await server.streetStatus.overlay.coveredSegments(segments) == live, "rebuild = live")

            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/retire", token: moderator).status == 200)
            try await server.approvedNetwork.catchUp()
            #expect(Self.reasons(try await client.sendJSON(.get, "/v1/streets/\(street.id)").json).isEmpty)
        }
    }

    @Test("overlay reads on both backends: marks by id, covered pairs among many (chunked), nothing asked → nothing", arguments: TestBackend.enabled)
    func overlay(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { _, server in
            let path = UUID()
            try await ApprovedNetworkLookupTests.approve(path, nodes: Array(1...1_000), (0..<1_000).map { [15.6 + Double($0) * 1e-5, 48.41] }, server)
            for (street, compatible) in [(Int64(7), false), (8, false), (8, true), (9, false)] {
                let event = try NewEvent(eventType: StreetCompatibilityChanged.eventType, schemaVersion: 1,
                                         encoding: StreetCompatibilityChanged(streetId: street, osmNodes: [[1, 2]], compatible: compatible,
                                                                              changedAt: ApprovedNetworkLookupTests.t0))
                _ = try await server.storage.store.append([event], to: StreetMarkAggregate.streamID(street), expectedVersion: .any)
            }
            try await server.approvedNetwork.catchUp()
            let overlay = server.streetStatus.overlay
            #expect(try await overlay.markedStreets([7, 8, 9, 10]) == [7, 9])
            #expect(try await overlay.markedStreets([]) == [])
            let asked = (1..<1_500).map { [Int64($0), Int64($0 + 1)] } + [[5, 7]]
            #expect(try await overlay.coveredSegments(asked) == Set((1..<1_000).map { [Int64($0), Int64($0 + 1)] }))
            #expect(try await overlay.coveredSegments([]) == [])
        }
    }

    @Test("the in-memory overlay: one load per version, shared by concurrent asks; approvals, marks and retirements move the version, conditions and obstacles do not; a failed load is retried",
          arguments: TestBackend.enabled)
    func cache(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { _, server in
            let reads = CountingOverlayReads(server.streetStatus.overlay)
            let cache = StreetOverlayCache(catalog: server.roads.streets, reads: reads)
            let street = try Self.hafen(server).street
            let pair = server.roads.streets.representativeSegments(of: street)[0]
            let empty = try await cache.current()
            #expect(empty.version == 0 && empty.covered.isEmpty && empty.marked.isEmpty && reads.loads == 1)
            _ = try await cache.current()
            #expect(reads.loads == 1, "the same version: answered from memory")

            let path = UUID()
            try await ApprovedNetworkLookupTests.approve(path, nodes: pair, [[15.6, 48.41], [15.601, 48.41]], server)
            try await server.approvedNetwork.catchUp()
            let asked = try await withThrowingTaskGroup(of: StreetOverlayCache.Snapshot.self) { group in
                for _ in 0..<8 { group.addTask { try await cache.current() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(asked.allSatisfy { $0.covered == [pair] && $0.version > 0 } && reads.loads == 2, "eight asks after the approval, one load")
            let approved = try await reads.overlayVersion()

            try await ApprovedNetworkLookupTests.append(PathStatusChanged(pathId: path, condition: "rough", source: .moderator,
                                                                          changedAt: ApprovedNetworkLookupTests.t0), path: path, server)
            try await ApprovedNetworkLookupTests.confirm(UUID(), on: path, at: 60, server)
            try await server.approvedNetwork.catchUp()
            #expect(try await reads.overlayVersion() == approved, "a condition and an obstacle leave the streets as they were")
            _ = try await cache.current()
            #expect(reads.loads == 2)

            let mark = StreetCompatibilityChanged(streetId: street.id, osmNodes: [pair], compatible: false, changedAt: ApprovedNetworkLookupTests.t0)
            _ = try await server.storage.store.append([try NewEvent(eventType: StreetCompatibilityChanged.eventType, schemaVersion: 1, encoding: mark)],
                                                      to: StreetMarkAggregate.streamID(street.id), expectedVersion: .any)
            try await server.approvedNetwork.catchUp()
            reads.failNextLoad()
            await #expect(throws: CountingOverlayReads.Failure.self) { try await cache.current() }
            let marked = try await cache.current()
            #expect(marked.marked == [street.id] && marked.version > approved && reads.loads == 4, "the failed load is retried by the next ask")

            try await ApprovedNetworkLookupTests.append(PathRetired(pathId: path, retiredAt: ApprovedNetworkLookupTests.t0), path: path, server)
            try await server.approvedNetwork.catchUp()
            let retired = try await cache.current()
            #expect(retired.covered.isEmpty && retired.marked == [street.id] && retired.version > marked.version && reads.loads == 5)
        }
    }
}

/// ``StreetOverlayReads`` over the real store, counting whole-catalogue loads (a `coveredSegments` call) and failing
/// one on request.
final class CountingOverlayReads: StreetOverlayReads, @unchecked Sendable {
    struct Failure: Error {}
    let base: any StreetOverlayReads
    private let lock = NSLock()
    private var counted = 0, failing = false

    init(_ base: any StreetOverlayReads) { self.base = base }

    var loads: Int { lock.withLock { counted } }
    func failNextLoad() { lock.withLock { failing = true } }

    func markedStreets(_ ids: [Int64]) async throws -> Set<Int64> { try await base.markedStreets(ids) }
    func overlayVersion() async throws -> Int64 { try await base.overlayVersion() }
    func coveredSegments(_ pairs: [[Int64]]) async throws -> Set<[Int64]> {
        let fail = lock.withLock { () -> Bool in
            counted += 1
            defer { failing = false }
            return failing
        }
        if fail { throw Failure() }
        return try await base.coveredSegments(pairs)
    }
}
