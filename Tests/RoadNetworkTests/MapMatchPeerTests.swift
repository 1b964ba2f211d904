import Foundation
import Testing
@testable import RoadNetwork

@Suite("Map matching against leuvenmapmatching on synthetic Krems rides")
struct MapMatchPeerTests {
    /// `scripts/lib/peers/leuven_match.py`, the one copy the benchmark runs too.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/lib/peers/leuven_match.py").path

    @Test("σ 10 m at 1 Hz: route mismatch no worse than leuvenmapmatching's on the same rides (≤ 5 %: a known gap)")
    func rmfAgainstPeer() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let matcher = MapMatcher(router: router)
        let rides = RideSimulator(router: router).rides(count: 4, length: 1_500...3_000, settings: .init(noiseSigma: 10), seed: 1_019)
        try #require(rides.count == 4)
        let ours = rides.map { ride in
            router.routeMismatch(truth: [ride.truth], matched: matcher.match(ride.observations).pieces.map(\.osmNodes))
        }
        let oursMean = ours.reduce(0, +) / Double(ours.count)
        withKnownIssue("issue 19 asks RMF ≤ 5 % at σ 10 m; this matcher reaches about 20 % (docs/road-network.md, \"Map matching\")") {
            #expect(oursMean <= 0.05, "our RMF per ride \(ours)")
        }
        #expect(oursMean <= 0.35, "our RMF per ride \(ours)")
        guard let python = ProcessInfo.processInfo.environment["WAYPOINT_PEERS_PYTHON"] else {
            Issue.record("WAYPOINT_PEERS_PYTHON is not set (scripts/test.sh sets it): leuvenmapmatching was not run")
            return
        }
        let answer = try LeuvenPeer(python: python, script: Self.script).match(rides.map(\.observations), sigma: 10, graph: router.graph)
        try #require(answer.paths.count == rides.count)
        let peer = zip(rides, answer.paths).map { router.routeMismatch(truth: [$0.truth], matched: $1) }
        let peerMean = peer.reduce(0, +) / Double(peer.count)
        #expect(oursMean <= peerMean, "ours \(ours), leuvenmapmatching \(peer)")
        print("map matching RMF σ 10 m, 1 Hz, Krems: ours \(ours) mean \(oursMean); leuvenmapmatching \(peer) mean \(peerMean)")
    }
}
