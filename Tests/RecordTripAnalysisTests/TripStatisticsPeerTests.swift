import Foundation
import RecordTripAnalysis
import ReferenceData
import RoadNetwork
import Testing

/// The statistics against gpxpy 1.6.2 run on the same GPX file (written by GPXWriter, read back by GPXReader, cleaned,
/// computed). Tolerances (docs/record-trip.md): distance within 1 %; moving time within 1 % of the
/// elapsed time; elevation gain and loss within 3 m on noise-free altitudes (our ±10 s average rounds a sharp summit),
/// and nearer the truth than gpxpy when the altitudes are noisy. Max speed is defined differently (gpxpy: the 95th percentile of step speeds; ours: the highest
/// median of five 10-second chord speeds), so it is only required to be nearer the truth than gpxpy's on noisy tracks.
@Suite(.serialized) struct TripStatisticsPeerTests {
    struct Comparison {
        var ours: TripStatistics
        var peer: GPXPeer.Figures
    }

    static func compare(_ fixes: [GPSFix], sourceLocation: SourceLocation = #_sourceLocation) throws -> Comparison? {
        let file = GPXWriter.write(GPXDocument(name: "peer ride", fixes: fixes))
        let document = try GPXReader.read(file)
        let ours = TripStatisticsCalculator.compute(TrackCleaner.clean(document.fixes))
        guard let peer = try GPXPeer.figures(forFile: file, sourceLocation: sourceLocation) else { return nil }
        return Comparison(ours: ours, peer: peer)
    }

    static func expectAgreement(_ comparison: Comparison, elevationToleranceM: Double?,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        let (ours, peer) = (comparison.ours, comparison.peer)
        print("gpxpy peer: distance \(ours.distanceM) / \(peer.length2d) m, moving \(ours.movingS) / \(peer.movingTime) s, "
              + "gain \(ours.elevationGainM) / \(peer.uphill) m, loss \(ours.elevationLossM) / \(peer.downhill) m, "
              + "max speed \(ours.maxSpeedMps) / \(peer.maxSpeed) m/s (ours / gpxpy)")
        #expect(abs(ours.distanceM - peer.length2d) / peer.length2d < 0.01, "distance \(ours.distanceM) vs gpxpy \(peer.length2d)",
                sourceLocation: sourceLocation)
        #expect(abs(ours.movingS - peer.movingTime) <= 0.01 * ours.elapsedS, "moving \(ours.movingS) vs gpxpy \(peer.movingTime)",
                sourceLocation: sourceLocation)
        if let tolerance = elevationToleranceM {
            #expect(abs(ours.elevationGainM - peer.uphill) <= tolerance, "gain \(ours.elevationGainM) vs gpxpy \(peer.uphill)",
                    sourceLocation: sourceLocation)
            #expect(abs(ours.elevationLossM - peer.downhill) <= tolerance, "loss \(ours.elevationLossM) vs gpxpy \(peer.downhill)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("a noise-free synthetic ride: distance, moving time and climbing agree with gpxpy")
    func noiseFree() throws {
        let fixes = TripStatisticsTests.ride.ride().fixes
        guard let comparison = try Self.compare(fixes) else { return }
        Self.expectAgreement(comparison, elevationToleranceM: 3)
    }

    @Test("position noise σ 3, 5 and 10 m: distance and moving time agree with gpxpy, max speed is nearer the truth",
          arguments: [3.0, 5.0, 10.0])
    func positionNoise(sigma: Double) throws {
        let truth = TripStatisticsTests.ride.ride()
        let fixes = truth.fixes.withNoise(sigma: sigma, seed: UInt64(sigma))
        guard let comparison = try Self.compare(fixes) else { return }
        Self.expectAgreement(comparison, elevationToleranceM: 3)
        #expect(abs(comparison.ours.maxSpeedMps - truth.maxSpeedMps) < abs(comparison.peer.maxSpeed - truth.maxSpeedMps))
    }

    @Test("altitude noise σ 1–3 m: our climb is nearer the true 90 m than gpxpy's", arguments: [1.0, 2.0, 3.0])
    func altitudeNoise(sigma: Double) throws {
        let fixes = TripStatisticsTests.ride.ride().fixes.withNoise(sigma: 2, altitudeSigma: sigma, seed: 11)
        guard let comparison = try Self.compare(fixes) else { return }
        Self.expectAgreement(comparison, elevationToleranceM: nil)
        let (ours, peer) = (comparison.ours, comparison.peer)
        #expect(abs(ours.elevationGainM - 90) < abs(peer.uphill - 90), "ours \(ours.elevationGainM), gpxpy \(peer.uphill)")
        #expect(abs(ours.elevationLossM - 90) < abs(peer.downhill - 90), "ours \(ours.elevationLossM), gpxpy \(peer.downhill)")
    }

    @Test("a ride along real Krems streets (RoadRouter route through the town, 1 Hz, σ 4 m, two stops) agrees with gpxpy")
    func realKremsRoute() throws {
        let path = try Self.kremsRoute()
        guard path.count > 1 else { return }
        let ride = SyntheticRide(path: path, speed: { 5.5 + 1.5 * sin($0 / 60) }, stops: [(120, 40), (400, 25)],
                                 altitude: { 203 + 12 * sin($0 / 700) })
        let truth = ride.ride()
        let fixes = truth.fixes.withNoise(sigma: 4, seed: 19)
        guard let comparison = try Self.compare(fixes) else { return }
        Self.expectAgreement(comparison, elevationToleranceM: 3)
        #expect(comparison.ours.elapsedS == truth.elapsedS)
    }

    /// The best bike route across Krems on the real extract: from the west of the old town to the first of a few
    /// street nodes in the south-east that the network joins (the extract has islands; the choice is deterministic).
    static func kremsRoute() throws -> [(latitude: Double, longitude: Double)] {
        let extract = try ReferenceDataDirectory.file("krems.osm.gz").path
        let router = RoadRouter(network: try RoadNetworkLoader.load(extracts: [extract], cacheDirectory: nil))
        let origin = RoadPoint(latitude: 48.41117, longitude: 15.60292)
        let destinations = [(48.39331, 15.64903), (48.40668, 15.63014), (48.3970, 15.6400), (48.4050, 15.6200)]
        for (latitude, longitude) in destinations {
            let request = RouteRequest(origin: origin, destination: RoadPoint(latitude: latitude, longitude: longitude))
            if let route = try? router.route(request).routes.first, route.distance > 2_000 {
                return route.geometry.map { ($0.latitude, $0.longitude) }
            }
        }
        Issue.record("no route across Krems from \(origin) to any of \(destinations)")
        return []
    }
}
