import Contracts
import Foundation
import NIOCore
import ServiceTesting
import Synchronization
import Testing
@testable import PathReview

/// ``ApprovedFeatureCache``: fragments held per version and band within a byte budget, and a listing whose fragments
/// are held reading only its paths' current states — which upkeep, re-approval and retirement keep true on both backends.
@Suite("path-review: pre-rendered features held in memory")
struct ApprovedFeatureCacheTests {
    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("fragments are held per version and band; a newer version drops them, an older one is not held")
    func versions() {
        let cache = ApprovedFeatureCache(budget: 1 << 20)
        let (a, b) = (UUID(), UUID())
        cache.hold([(a, Self.bytes("a3")), (b, Self.bytes("b3"))], band: 3, version: 7)
        #expect(cache.fragments(of: [a, b], band: 3, version: 7) == [Self.bytes("a3"), Self.bytes("b3")])
        #expect(cache.fragments(of: [b, UUID(), a], band: 3, version: 7) == [Self.bytes("b3"), nil, Self.bytes("a3")])
        #expect(cache.fragments(of: [a], band: 4, version: 7) == [nil], "another band")
        #expect(cache.fragments(of: [a], band: 3, version: 8) == [nil], "another version")
        cache.hold([(a, Self.bytes("a3 older"))], band: 3, version: 6)
        #expect(cache.fragments(of: [a], band: 3, version: 7) == [Self.bytes("a3")], "a fragment for an older version is not held")
        cache.hold([(a, Self.bytes("a3 new"))], band: 3, version: 8)
        #expect(cache.fragments(of: [a, b], band: 3, version: 8) == [Self.bytes("a3 new"), nil], "a newer version starts afresh")
        #expect(cache.fragments(of: [a], band: 3, version: 7) == [nil])
        #expect(cache.heldBytes == "a3 new".utf8.count)
    }

    @Test("held bytes stay within the budget; a fragment is held as its own bytes, not the buffer it came in; budget 0 holds nothing")
    func budget() {
        let cache = ApprovedFeatureCache(budget: 10_000)
        let ids = (0..<200).map { _ in UUID() }
        cache.hold(ids.map { ($0, ByteBuffer(repeating: UInt8(ascii: "x"), count: 100)) }, band: 0, version: 1)
        #expect(cache.heldBytes <= 10_000 && cache.heldBytes >= 7_000, "\(cache.heldBytes)")
        let held = cache.fragments(of: ids, band: 0, version: 1).compactMap { $0 }
        #expect(held.count * 100 == cache.heldBytes)
        cache.hold([(UUID(), ByteBuffer(repeating: 0, count: 20_000))], band: 0, version: 1)
        #expect(cache.heldBytes <= 10_000, "a fragment over the budget is not held")

        var message = ByteBuffer(repeating: UInt8(ascii: "y"), count: 100_000)
        let slice = message.readSlice(length: 10)!
        let small = ApprovedFeatureCache(budget: 1 << 20)
        let id = UUID()
        small.hold([(id, slice)], band: 2, version: 1)
        let copy = try! #require(small.fragments(of: [id], band: 2, version: 1).first!)
        #expect(copy == slice && copy.capacity < 1_000, "\(copy.capacity)")

        let none = ApprovedFeatureCache(budget: 0)
        none.hold([(id, slice)], band: 2, version: 1)
        #expect(none.fragments(of: [id], band: 2, version: 1) == [nil] && none.heldBytes == 0)
    }

    @Test("states are held per checkpoint: a newer one drops them, an older one is not held; a retired path's nil is held; budget 0 holds none")
    func states() {
        let cache = ApprovedFeatureCache(budget: 1 << 20)
        let (a, b, c) = (UUID(), UUID(), UUID())
        let optimal = ApprovedPathState(condition: "optimal", obstacleCount: 0)
        let upkept = ApprovedPathState(condition: "requires-maintenance", obstacleCount: 1)
        cache.holdStates([(a, optimal), (b, nil)], version: 10)
        #expect(cache.states(of: [a, b, c], version: 10) == [.some(optimal), .some(nil), nil])
        #expect(cache.states(of: [a], version: 11) == [nil], "another checkpoint")
        cache.holdStates([(c, optimal)], version: 9)
        #expect(cache.states(of: [c], version: 10) == [nil], "a state read for an older checkpoint is not held")
        cache.holdStates([(a, upkept)], version: 11)
        #expect(cache.states(of: [a, b], version: 11) == [.some(upkept), nil], "a newer checkpoint starts afresh")
        #expect(cache.states(of: [a], version: 10) == [nil])
        #expect(cache.heldStates == 1)

        let none = ApprovedFeatureCache(budget: 0)
        none.holdStates([(a, optimal)], version: 1)
        #expect(none.states(of: [a], version: 1) == [nil] && none.heldStates == 0)
    }

    @Test("a bbox is four numbers in range and in order; spaces and tabs around them are allowed")
    func boxes() {
        #expect(ApprovedPathListing.box(" 15.5 , 48.3,15.7 ,\t48.5") == ApprovedNetworkBox(west: 15.5, south: 48.3, east: 15.7, north: 48.5))
        #expect(ApprovedPathListing.box("-180,-90,180,90") == ApprovedNetworkBox(west: -180, south: -90, east: 180, north: 90))
        for bad in ["15.5,48.3,15.7", "15.5,48.3,15.7,48.5,1", "a,b,c,d", "15.7,48.3,15.5,48.5", "15.5,48.5,15.7,48.3", "15.5,,15.7,48.5",
                    "nan,48.3,15.7,48.5", "15.5,48.3,inf,48.5", "181,0,182,1", "1 5,48.3,15.7,48.5", ""] {
            #expect(ApprovedPathListing.box(bad) == nil, "\(bad)")
        }
    }

    /// The store's reads, counted.
    final class CountingReads: ApprovedNetworkReads {
        let reads: any ApprovedNetworkReads
        let counts = Mutex((features: 0, states: 0))
        let sizes = Mutex((features: [Int](), states: [Int]()))
        init(_ reads: any ApprovedNetworkReads) { self.reads = reads }
        func path(id: UUID) async throws -> ApprovedPathRecord? { try await reads.path(id: id) }
        func overlayVersion() async throws -> Int64 { try await reads.overlayVersion() }
        func versions() async throws -> ApprovedNetworkVersions { try await reads.versions() }
        func boxes() async throws -> [ApprovedBoxIndex.Entry] { try await reads.boxes() }
        func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow?] {
            counts.withLock { $0.features += 1 }
            sizes.withLock { $0.features.append(page.count) }
            return try await reads.features(of: page, zoom: zoom)
        }
        func states(of page: [ApprovedBoxIndex.Entry]) async throws -> [ApprovedPathState?] {
            counts.withLock { $0.states += 1 }
            sizes.withLock { $0.states.append(page.count) }
            return try await reads.states(of: page)
        }
    }

    @Test("a page whose fragments are held reads only states, and shows upkeep, a re-approval and a retirement as a cold read does",
          arguments: TestBackend.enabled)
    func listing(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { _, server in
            let (a, b, c, d) = (UUID(), UUID(), UUID(), UUID())
            let line = [[15.60, 48.41], [15.601, 48.41], [15.602, 48.411]]
            for id in [a, b, c] { try await ApprovedNetworkLookupTests.approve(id, nodes: [1, 2, 3], line, server) }
            try await ApprovedNetworkLookupTests.approve(d, nodes: [6, 7], [[7.43, 43.74], [7.431, 43.741]], server)
            try await server.approvedNetwork.catchUp()
            let reads = CountingReads(server.networkReads)
            let listing = ApprovedPathListing(reads: reads, lookup: server.networkLookup, boxes: ApprovedBoxIndex(reads: reads),
                                              features: ApprovedFeatureCache(budget: 1 << 20))
            let cold = ApprovedPathListing(reads: server.networkReads, lookup: server.networkLookup, boxes: ApprovedBoxIndex(reads: server.networkReads),
                                           features: ApprovedFeatureCache(budget: 0))
            let world = ApprovedNetworkBox(west: -180, south: -90, east: 180, north: 90)
            func list(_ listing: ApprovedPathListing, zoom: Int?) async throws -> [String] {
                try await listing.features(in: world, limit: 500, zoom: zoom).rows.map(\.json)
            }
            func check(_ label: String) async throws {
                for zoom in [nil, 15, 8] {
                    #expect(try await list(listing, zoom: zoom) == (try await list(cold, zoom: zoom)), "\(label), zoom \(zoom.map(String.init) ?? "none")")
                }
            }

            // A Krems box first: its three paths' fragments and states held; the world then reads Monaco's whole, and
            // Krems' states are held at the same checkpoint.
            let krems = try await listing.features(in: ApprovedNetworkBox(west: 15.5, south: 48.3, east: 15.7, north: 48.5), limit: 500, zoom: nil)
            #expect(krems.rows.count == 3 && !krems.truncated)
            #expect(reads.sizes.withLock { $0.features } == [3] && reads.sizes.withLock { $0.states } == [])
            #expect(try await list(listing, zoom: nil) == (try await list(cold, zoom: nil)))
            #expect(reads.sizes.withLock { $0.features } == [3, 1] && reads.sizes.withLock { $0.states } == [],
                    "only the path not held read whole; the held ones' states too were held")
            #expect(listing.features.heldStates == 4)
            reads.counts.withLock { $0 = (0, 0) }

            try await check("first")
            #expect(reads.counts.withLock { $0 } == (2, 0), "the bands not read yet whole once; states held at the checkpoint")
            try await check("held")
            #expect(reads.counts.withLock { $0 } == (2, 0), "then nothing: the checkpoint did not move")
            let limited = try await listing.features(in: world, limit: 2, zoom: nil)
            #expect(limited.rows.count == 2 && limited.truncated)

            try await ApprovedNetworkLookupTests.confirm(UUID(), on: a, at: 5, server)
            try await ApprovedNetworkLookupTests.append(PathStatusChanged(pathId: a, condition: "requires-maintenance", source: .reports,
                                                                          changedAt: ApprovedNetworkLookupTests.t0), path: a, server)
            try await server.approvedNetwork.catchUp()
            try await check("after upkeep")
            #expect(reads.counts.withLock { $0 } == (2, 1), "upkeep leaves the shape version and the held fragments; the states are read once at the new checkpoint")
            try await check("after upkeep, held")
            #expect(reads.counts.withLock { $0 } == (2, 1))
            let upkept = try await list(listing, zoom: nil)
            #expect(upkept.contains { $0.contains(a.uuidString.lowercased()) && $0.contains(#""condition":"requires-maintenance","obstacleCount":1"#) })

            let moved = [[7.42, 43.73], [7.421, 43.731]]
            try await ApprovedNetworkLookupTests.approve(a, nodes: [4, 5], moved, server)
            try await ApprovedNetworkLookupTests.append(PathRetired(pathId: b, retiredAt: ApprovedNetworkLookupTests.t0), path: b, server)
            try await server.approvedNetwork.catchUp()
            try await check("after re-approval and retirement")
            let now = try await list(listing, zoom: nil)
            #expect(now.count == 3 && !now.contains { $0.contains(b.uuidString.lowercased()) }, "the retired path left")
            #expect(now.contains { $0.contains(a.uuidString.lowercased()) && $0.contains("[7.42,43.73]") }, "the re-approved path's new line")
        }
    }
}
