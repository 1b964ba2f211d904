import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Counts the obstacles rides saw (record-trip's `ObstacleConfirmed`, stored by the `waypoint.trips` consumer) into the
/// approved paths they lie on, durably: a sighting goes to every approved, not retired path holding its OSM node pair
/// (either direction) — or, when it has none, to the paths within ``nearRadiusMetres`` of its position — as
/// ``PathDraftCommand/rideSighting(sightingId:type:latitude:longitude:at:)``, clustered like a cyclist's report. It is
/// marked done only after every path took it; a crash midway repeats it, and each path counts a sighting id once.
/// A sighting on no approved path is done at once (it stays record-trip's).
public struct RideSightingWorker: Service {
    let drafts: PathDrafts
    let lookup: any ApprovedNetworkLookup
    let store: any RideSubmissionStore
    let network: any ProjectionRunning
    let interval: Duration
    let logger: Logger

    /// Metres: how far from a path a sighting without a node pair may lie (a phone's GPS on a bicycle).
    public static let nearRadiusMetres = 15.0

    /// The worker over the drafts feature, the approved network and the stored sightings.
    public init(drafts: PathDrafts, lookup: any ApprovedNetworkLookup, store: any RideSubmissionStore, network: any ProjectionRunning,
                interval: Duration = .seconds(2), logger: Logger) {
        self.drafts = drafts
        self.lookup = lookup
        self.store = store
        self.network = network
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown (the first once the approved network is live).
    public func run() async throws {
        try await PeriodicWorker("ride sightings", every: interval, after: [network], logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Counts every stored sighting not yet counted; returns how many were handled.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pendingSightings()
        for sighting in pending {
            for path in try await paths(of: sighting) {
                do {
                    _ = try await drafts.execute(.rideSighting(sightingId: sighting.obstacleId, type: Self.type(of: sighting.kind),
                                                               latitude: sighting.latitude, longitude: sighting.longitude, at: sighting.confirmedAt),
                                                 on: path, ifMatch: nil, metadata: EventMetadata(actorID: "system:ride-sightings"))
                } catch let error as UpkeepError where error == .retired || error == .unknownPath {
                    continue  // retired since the read model said otherwise
                }
            }
            try await store.markSightingDone(sighting.obstacleId)
        }
        return pending.count
    }

    /// The approved paths the sighting lies on.
    func paths(of sighting: ObstacleConfirmed) async throws -> [UUID] {
        if sighting.osmNodes.count == 2 {
            return try await lookup.paths(onSegment: sighting.osmNodes[0], sighting.osmNodes[1])
        }
        return try await lookup.paths(nearLatitude: sighting.latitude, longitude: sighting.longitude, radiusMetres: Self.nearRadiusMetres, limit: 5)
    }

    /// record-trip's kinds in path-review's words: a rough surface is none of the named types.
    static func type(of kind: ObstacleKind) -> PathObstacleType {
        switch kind {
        case .pothole: .pothole
        case .bump: .bump
        case .roughSurface: .other
        }
    }
}
