import Foundation
import Testing
@testable import RoadNetwork

/// The figures behind the peer comparison, printed, not checked: run on demand (they take minutes), with
/// `WAYPOINT_PEERS_PYTHON` and `WAYPOINT_PEER_FIGURES=1` (the comparison) or `WAYPOINT_PEER_SWEEP=1` (the peer's
/// parameter sweep, on its own seed). `docs/road-network.md`, "Map matching", quotes them.
@Suite("Map matching figures against leuvenmapmatching (on demand)")
struct MapMatchPeerFigures {
    static let environment = ProcessInfo.processInfo.environment

    /// Mean RMF, ours and the peer's, and the peer's mean seconds per ride, on `count` rides of `seed` per σ.
    static func compare(sigmas: [Double], count: Int, seed: UInt64, peer: LeuvenPeer, label: String) throws {
        let router = try #require(RouteFixtures.kremsRouter)
        for sigma in sigmas {
            let rides = RideSimulator(router: router).rides(count: count, length: 1_500...3_000, settings: .init(noiseSigma: sigma), seed: seed)
            let ours = MapMatchPeerTests.ours(rides, router: router)
            let (theirs, seconds) = try MapMatchPeerTests.peer(peer, rides, sigma: sigma, router: router)
            let round = { (value: Double) in (value * 1_000).rounded() / 1_000 }
            print("peer figures \(label) σ \(Int(sigma)) m, \(rides.count) rides: ours \(round(MapMatchPeerTests.mean(ours))) "
                  + "\(ours.map(round)); leuvenmapmatching \(round(MapMatchPeerTests.mean(theirs))) \(theirs.map(round)), "
                  + "\(round(MapMatchPeerTests.mean(seconds))) s per ride")
        }
    }

    @Test("ours and leuvenmapmatching at σ 5, 10 and 20 m on 8 Krems rides (seed 2 019)",
          .enabled(if: environment["WAYPOINT_PEER_FIGURES"] != nil))
    func comparison() throws {
        guard let peer = MapMatchPeerTests.peer() else { return }
        try Self.compare(sigmas: [5, 10, 20], count: 8, seed: 2_019, peer: peer, label: "chosen")
    }

    /// The sweep's settings: overrides of the script's factors (see its docstring), by name.
    static let sweep: [(String, [String: Double])] = [
        ("chosen", [:]),
        ("as before: obs_noise 1×, dist_noise = obs_noise, no thinning",
         ["obs_noise_factor": 1, "dist_noise_ratio": 1, "fix_spacing_factor": 0]),
        ("no thinning", ["fix_spacing_factor": 0]),
        ("thinning 2σ (Newson & Krumm's)", ["fix_spacing_factor": 2]),
        ("thinning 5σ", ["fix_spacing_factor": 5]),
        ("obs_noise 2×", ["obs_noise_factor": 2]),
        ("dist_noise = obs_noise", ["dist_noise_ratio": 1]),
        ("dist_noise = 3 obs_noise", ["dist_noise_ratio": 3]),
        ("max_dist 100 m", ["max_dist_factor": 0, "max_dist_floor": 100]),
        ("lattice width 16", ["max_lattice_width": 16]),
        ("lattice width 4", ["max_lattice_width": 4]),
    ]

    @Test("the peer's parameter sweep at σ 5, 10 and 20 m on 6 Krems rides (seed 2 026)",
          .enabled(if: environment["WAYPOINT_PEER_SWEEP"] != nil))
    func parameterSweep() throws {
        guard var peer = MapMatchPeerTests.peer() else { return }
        for (label, overrides) in Self.sweep {
            peer.overrides = overrides
            try Self.compare(sigmas: [5, 10, 20], count: 6, seed: 2_026, peer: peer, label: label)
        }
    }
}
