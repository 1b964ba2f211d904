import Foundation
import Testing
@testable import RoadNetwork

/// Our matcher against leuvenmapmatching on the same synthetic Krems rides (``RideSimulator``: a route of our router
/// between random vertices, ridden at 4–7 m/s, a fix a second with Gaussian noise of σ metres per axis; the truth is the
/// route's directed OSM node pairs). Seeds: 1 019 here, 2 026 for the peer's parameter sweep, 2 019 for the figures.
@Suite("Map matching against leuvenmapmatching on synthetic Krems rides")
struct MapMatchPeerTests {
    /// `scripts/lib/peers/leuven_match.py`, the one copy the benchmark runs too.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/lib/peers/leuven_match.py").path

    /// The peer, or `nil` (an Issue recorded) when `WAYPOINT_PEERS_PYTHON` is not set.
    static func peer() -> LeuvenPeer? {
        guard let python = ProcessInfo.processInfo.environment["WAYPOINT_PEERS_PYTHON"] else {
            Issue.record("WAYPOINT_PEERS_PYTHON is not set (scripts/test.sh sets it): leuvenmapmatching was not run")
            return nil
        }
        return LeuvenPeer(python: python, script: script)
    }

    /// Each ride's RMF with our matcher.
    static func ours(_ rides: [RideSimulator.Ride], router: RoadRouter) -> [Double] {
        let matcher = MapMatcher(router: router)
        return rides.map { router.routeMismatch(truth: [$0.truth], matched: matcher.match($0.observations).pieces.map(\.osmNodes)) }
    }

    /// Each ride's RMF with the peer, and its seconds per ride.
    static func peer(_ peer: LeuvenPeer, _ rides: [RideSimulator.Ride], sigma: Double, router: RoadRouter) throws -> ([Double], [Double]) {
        let answer = try peer.match(rides.map(\.observations), sigma: sigma, graph: router.graph)
        try #require(answer.paths.count == rides.count)
        return (zip(rides, answer.paths).map { router.routeMismatch(truth: [$0.truth], matched: $1) }, answer.seconds)
    }

    static func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }

    @Test("the peer's pipeline on ground truth: at σ 0 and 2 m every true segment is exported, and both matchers' RMF is near 0 (mean ≤ 0.05, each ride ≤ 0.10)")
    func pipelineOnGroundTruth() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        for sigma in [0.0, 2.0] {
            let rides = RideSimulator(router: router).rides(count: 4, length: 1_500...3_000, settings: .init(noiseSigma: sigma), seed: 1_019)
            try #require(rides.count == 4)
            let ours = Self.ours(rides, router: router)
            #expect(Self.mean(ours) <= 0.05 && ours.allSatisfy { $0 <= 0.10 }, "σ \(sigma) m: our RMF per ride \(ours)")
            guard let peer = Self.peer() else { return }
            let exported = Set(peer.request(rides.map(\.observations), sigma: sigma, graph: router.graph).edges
                .map { CostOverlay.NodePair(from: $0[0], to: $0[1]) })
            let truth = RouteMismatch.pairs(rides.map(\.truth))
            #expect(truth.isSubset(of: exported), "σ \(sigma) m: \(truth.subtracting(exported).count) true segments not exported")
            let (theirs, _) = try Self.peer(peer, rides, sigma: sigma, router: router)
            #expect(Self.mean(theirs) <= 0.05 && theirs.allSatisfy { $0 <= 0.10 }, "σ \(sigma) m: leuvenmapmatching's RMF per ride \(theirs)")
        }
    }

    @Test("σ 10 m at 1 Hz: route mismatch no worse than leuvenmapmatching's on the same rides (both known gaps: ≤ 5 % and ≤ the peer's)")
    func rmfAgainstPeer() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let rides = RideSimulator(router: router).rides(count: 4, length: 1_500...3_000, settings: .init(noiseSigma: 10), seed: 1_019)
        try #require(rides.count == 4)
        let ours = Self.ours(rides, router: router)
        let oursMean = Self.mean(ours)
        withKnownIssue("issue 19 asks RMF ≤ 5 % at σ 10 m; on these 4 rides this matcher reaches 0.063 (one ride 0.17: a short-cut of 160 m through the streets beside the route, docs/road-network.md, \"Map matching\")") {
            #expect(oursMean <= 0.05, "our RMF per ride \(ours)")
        }
        #expect(oursMean <= 0.35, "our RMF per ride \(ours)")
        guard let peer = Self.peer() else { return }
        let (theirs, _) = try Self.peer(peer, rides, sigma: 10, router: router)
        let peerMean = Self.mean(theirs)
        #expect(peerMean <= 0.35, "leuvenmapmatching's RMF per ride \(theirs): a handicapped peer (it reached 0.10 here)")
        // Ours 0.063 on these rides with the fixes' course and speed read (0.097 course only, 0.116 neither), leuven's
        // 0.100 (thinned as Newson & Krumm do, swept parameters: docs/road-network.md, "Map matching"; it reads
        // positions only).
        #expect(oursMean <= peerMean, "ours \(ours), leuvenmapmatching \(theirs)")
        print("map matching RMF σ 10 m, 1 Hz, Krems: ours \(ours) mean \(oursMean); leuvenmapmatching \(theirs) mean \(peerMean)")
    }
}
