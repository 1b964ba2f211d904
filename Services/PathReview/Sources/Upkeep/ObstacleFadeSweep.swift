import EventSourcing
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

extension PathDrafts {
    /// Fades path `pathId`'s obstacle `obstacleId` when it is still open and unconfirmed since `cutoff`.
    public func fadeObstacle(_ pathId: UUID, obstacleId: UUID, cutoff: Date, at: Date, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.fadeObstacle(obstacleId: obstacleId, cutoff: cutoff, at: at), on: pathId, ifMatch: nil, metadata: metadata)
    }
}

/// The fading sweep (issue 20 point 6): every `interval` it asks the approved network for the obstacles unconfirmed for
/// `fadeDays` (`WAYPOINT_PATH_OBSTACLE_FADE_DAYS`) and fades each with `PathObstacleResolved(faded)` — the command
/// re-checks the path's own stream, so an obstacle confirmed meanwhile stays. A path retired meanwhile is skipped.
public struct ObstacleFadeSweep: Service {
    let drafts: PathDrafts
    let lookup: any ApprovedNetworkLookup
    let fadeDays: Int
    let interval: Duration
    let logger: Logger
    /// Obstacles read per round trip to the read model.
    static let batch = 100

    /// The sweep over the drafts feature and the approved network.
    public init(drafts: PathDrafts, lookup: any ApprovedNetworkLookup, fadeDays: Int, interval: Duration = .seconds(600), logger: Logger) {
        self.drafts = drafts
        self.lookup = lookup
        self.fadeDays = fadeDays
        self.interval = interval
        self.logger = logger
    }

    /// Runs sweeps until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("obstacle fading", every: interval, logger: logger) {
            _ = try await sweep(now: drafts.now())
        }.run()
    }

    /// Fades every obstacle unconfirmed for ``fadeDays`` at `now`; returns how many faded. The read model may lag the
    /// log: an obstacle it still lists after fading is a no-op the next time.
    @discardableResult
    public func sweep(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-Double(fadeDays) * 86_400)
        let metadata = EventMetadata(actorID: "system:obstacle-fading")
        var faded = 0
        for stale in try await lookup.obstacles(lastConfirmedBefore: cutoff, limit: Self.batch) {
            do {
                let before = try await drafts.approvedPath(stale.pathId).upkeep?.openObstacles.count ?? 0
                let (state, _) = try await drafts.fadeObstacle(stale.pathId, obstacleId: stale.obstacleId, cutoff: cutoff, at: now, metadata: metadata)
                if (state.upkeep?.openObstacles.count ?? 0) < before { faded += 1 }
            } catch let error as UpkeepError {
                logger.debug("obstacle not faded", metadata: ["path": "\(stale.pathId)", "reason": "\(error)"])
            }
        }
        return faded
    }
}
