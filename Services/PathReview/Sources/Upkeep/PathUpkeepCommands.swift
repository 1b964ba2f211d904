import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// A signed-in cyclist reported an approved path's condition (stays in the log: it names the reporter).
public struct PathConditionReported: EventPayload, Hashable {
    public static let eventType = "PathConditionReported"
    public var pathId: UUID
    public var reporterId: UUID
    public var condition: PathCondition
    public var reportedAt: Date
}

/// A signed-in cyclist reported an obstacle on an approved path (stays in the log: it names the reporter and keeps their
/// note); the confirmation it made follows it. `obstacleId`: the obstacle it was clustered into.
public struct PathObstacleReported: EventPayload, Hashable {
    public static let eventType = "PathObstacleReported"
    public var pathId: UUID
    public var obstacleId: UUID
    public var reporterId: UUID
    public var type: PathObstacleType
    /// Where the cyclist placed it, projected onto the path.
    public var latitude: Double
    public var longitude: Double
    public var note: String?
    public var reportedAt: Date
}

/// A ride saw an obstacle on an approved path: record-trip's published `ObstacleConfirmed` (which names no rider),
/// placed on this path by its OSM node pair or position (stays in the log); the confirmation it made follows it.
/// `sightingId`: record-trip's obstacle id, what makes a redelivered sighting count once.
public struct PathObstacleSighted: EventPayload, Hashable {
    public static let eventType = "PathObstacleSighted"
    public var pathId: UUID
    public var obstacleId: UUID
    public var sightingId: UUID
    public var type: PathObstacleType
    public var latitude: Double
    public var longitude: Double
    public var seenAt: Date
}

/// A signed-in cyclist reported an open obstacle gone (stays in the log: it names them). The second cyclist's report
/// since the obstacle's last confirmation resolves it (``PathDraftAggregate/goneReportsToResolve``).
public struct PathObstacleGoneReported: EventPayload, Hashable {
    public static let eventType = "PathObstacleGoneReported"
    public var pathId: UUID
    public var obstacleId: UUID
    public var reporterId: UUID
    public var reportedAt: Date
}

/// A moderator set (`condition`) or lifted (`nil`) an override of a path's published condition (stays in the log).
public struct PathStatusOverridden: EventPayload, Hashable {
    public static let eventType = "PathStatusOverridden"
    public var pathId: UUID
    public var moderatorId: UUID
    public var condition: PathCondition?
    public var overriddenAt: Date
}

// Stored in the path's stream as they happen: the contracts' types are the payloads.
extension PathStatusChanged: EventPayload {}
extension PathObstacleResolved: EventPayload {}
extension PathRetired: EventPayload {}

/// An approved path's life after approval, folded from its stream (`nil` on a path never approved).
public struct PathUpkeepState: Codable, Sendable, Hashable {
    /// The condition published now (the approval's, then each `PathStatusChanged`).
    public var condition: PathCondition
    /// A moderator's override, while it holds.
    public var override: PathCondition?
    /// The latest condition reports (at most ``PathDraftAggregate/keptReports``; older ones weigh next to nothing).
    public var reports: [ConditionReport] = []
    /// Open obstacles, in the order they were first seen (the clustering's state).
    public var obstacles: [OpenObstacle] = []
    /// Open obstacles' ids.
    public var openObstacles: [UUID] { obstacles.map(\.id) }
    public var retired = false
    /// The ride sightings counted so far (the newest ``PathDraftAggregate/keptSightings``): a redelivery adds nothing.
    public var rideSightings: [UUID]? = nil
    /// Per open obstacle, the cyclists who reported it gone since its last confirmation.
    public var goneReports: [UUID: [UUID]]? = nil
}


/// Why an upkeep command was refused.
public enum UpkeepError: Error, Sendable, Hashable, ProblemConvertible {
    /// No approved path has this id (never approved, or not a path).
    case unknownPath
    /// The path was retired: retirement is final.
    case retired
    /// No open obstacle of the path has this id (never, or resolved).
    case unknownObstacle

    public var problem: Problem {
        switch self {
        case .unknownPath: .notFound("no such approved path", code: "unknown-path")
        case .retired: .conflict("The path was retired; it takes no more reports or changes.", code: "path-retired")
        case .unknownObstacle: .notFound("no such open obstacle on this path", code: "unknown-obstacle")
        }
    }
}

/// The upkeep rules on a path's stream (issue 20 point 6): any signed-in cyclist reports a condition; the published
/// condition follows ``PathStatusRule`` unless a moderator's override holds; a moderator sets or lifts the override, or
/// retires the path (final; its open obstacles are resolved with it).
extension PathDraftAggregate {
    /// Condition reports a path's state keeps.
    public static let keptReports = 200
    /// Ride sighting ids a path's state keeps for deduplication (record-trip sends each once; a redelivery comes soon).
    public static let keptSightings = 1_000
    /// Distinct cyclists who must report an obstacle gone (since its last confirmation) for it to be resolved; a
    /// moderator resolves at once.
    public static let goneReportsToResolve = 2

    static func decideUpkeep(_ command: PathDraftCommand, _ s: PathDraftState) throws -> [PathDraftEvent] {
        guard let id = s.draftId, let upkeep = s.upkeep else { throw UpkeepError.unknownPath }
        guard !upkeep.retired else { throw UpkeepError.retired }
        switch command {
        case let .reportCondition(reporter, condition, at):
            let reported = PathConditionReported(pathId: id, reporterId: reporter, condition: condition, reportedAt: at)
            let reports = upkeep.reports + [ConditionReport(condition: condition, reportedAt: at)]
            let change = PathStatusRule.change(published: upkeep.condition, overridden: upkeep.override != nil, reports: reports, now: at)
            return [.conditionReported(reported)] + (change.map { [.statusChanged(PathStatusChanged(pathId: id, condition: $0.rawValue, source: .reports, changedAt: at))] } ?? [])
        case let .overrideStatus(moderator, condition, at):
            guard condition != upkeep.override else { return [] }
            let overridden = PathDraftEvent.statusOverridden(PathStatusOverridden(pathId: id, moderatorId: moderator, condition: condition, overriddenAt: at))
            let target = condition ?? PathStatusRule.change(published: upkeep.condition, overridden: false, reports: upkeep.reports, now: at)
            guard let target, target != upkeep.condition else { return [overridden] }
            return [overridden, .statusChanged(PathStatusChanged(pathId: id, condition: target.rawValue, source: condition == nil ? .reports : .moderator, changedAt: at))]
        case let .reportObstacle(reporter, obstacle, at):
            return sighting(ObstacleSighting(type: obstacle.type, latitude: obstacle.latitude, longitude: obstacle.longitude, seenAt: at),
                            offset: obstacle.offsetMetres, on: id, s, reported: (reporter, obstacle.note))
        case let .confirmObstacle(_, obstacleId, at):
            guard let open = upkeep.obstacles.first(where: { $0.id == obstacleId }) else { throw UpkeepError.unknownObstacle }
            return sighting(ObstacleSighting(type: open.type, latitude: open.latitude, longitude: open.longitude, seenAt: at),
                            offset: nil, on: id, s, reported: nil)
        case let .rideSighting(sightingId, type, latitude, longitude, at):
            guard !(upkeep.rideSightings ?? []).contains(sightingId) else { return [] }
            let events = sighting(ObstacleSighting(type: type, latitude: latitude, longitude: longitude, seenAt: at), offset: nil, on: id, s, reported: nil)
            guard case .obstacleConfirmed(let confirmed)? = events.last else { return events }
            return [.obstacleSighted(PathObstacleSighted(pathId: id, obstacleId: confirmed.obstacleId, sightingId: sightingId, type: type,
                                                         latitude: latitude, longitude: longitude, seenAt: at))] + events
        case let .reportGone(user, obstacleId, at):
            guard upkeep.openObstacles.contains(obstacleId) else { throw UpkeepError.unknownObstacle }
            let reporters = upkeep.goneReports?[obstacleId] ?? []
            guard !reporters.contains(user) else { return [] }
            let reported = PathDraftEvent.obstacleGoneReported(PathObstacleGoneReported(pathId: id, obstacleId: obstacleId, reporterId: user, reportedAt: at))
            guard reporters.count + 1 >= goneReportsToResolve else { return [reported] }
            return [reported, .obstacleResolved(PathObstacleResolved(obstacleId: obstacleId, pathId: id, resolution: .resolved, resolvedAt: at))]
        case let .resolveObstacle(_, obstacleId, at):
            guard upkeep.openObstacles.contains(obstacleId) else { throw UpkeepError.unknownObstacle }
            return [.obstacleResolved(PathObstacleResolved(obstacleId: obstacleId, pathId: id, resolution: .resolved, resolvedAt: at))]
        case let .fadeObstacle(obstacleId, cutoff, at):
            // Confirmed since the sweep read the network, or gone already: nothing fades.
            guard let open = upkeep.obstacles.first(where: { $0.id == obstacleId }), open.lastConfirmedAt < cutoff else { return [] }
            return [.obstacleResolved(PathObstacleResolved(obstacleId: obstacleId, pathId: id, resolution: .faded, resolvedAt: at))]
        case let .retire(_, at):
            let resolved = upkeep.openObstacles.map {
                PathDraftEvent.obstacleResolved(PathObstacleResolved(obstacleId: $0, pathId: id, resolution: .pathRetired, resolvedAt: at))
            }
            return resolved + [.retired(PathRetired(pathId: id, retiredAt: at))]
        default:
            return try decide(command, s)
        }
    }

    /// A sighting clustered into the path's open obstacles (``ObstacleClustering``): the report (when a cyclist made
    /// one; in the log only) and the confirmation it makes, on the route's node pair at `offset` (the anchor's pair when
    /// it joins an obstacle seen before).
    static func sighting(_ sighting: ObstacleSighting, offset: Double?, on id: UUID, _ s: PathDraftState,
                         reported: (reporter: UUID, note: String?)?) -> [PathDraftEvent] {
        let open = s.upkeep?.obstacles ?? []
        let (obstacles, index) = ObstacleClustering.add(sighting, to: open, newId: { UUID.v4() })
        let obstacle = obstacles[index]
        let route = s.content?.route ?? DraftRoute(nodeIDs: [], coordinates: [], lengthMetres: 0)
        let nodes = offset.map { segment(at: $0, of: route) } ?? segment(near: obstacle, of: route)
        let confirmed = PathObstacleConfirmed(obstacleId: obstacle.id, pathId: id, osmNodes: nodes, latitude: obstacle.latitude,
                                              longitude: obstacle.longitude, type: obstacle.type.rawValue, confidence: obstacle.confidence,
                                              sightings: obstacle.sightings, confirmedAt: sighting.seenAt)
        guard let reported else { return [.obstacleConfirmed(confirmed)] }
        let report = PathObstacleReported(pathId: id, obstacleId: obstacle.id, reporterId: reported.reporter, type: sighting.type,
                                          latitude: sighting.latitude, longitude: sighting.longitude, note: reported.note, reportedAt: sighting.seenAt)
        return [.obstacleReported(report), .obstacleConfirmed(confirmed)]
    }

    /// The route's node pair nearest to an obstacle's anchor (its segment when it was first placed).
    static func segment(near obstacle: OpenObstacle, of route: DraftRoute) -> [Int64] {
        guard route.nodeIDs.count >= 2, route.nodeIDs.count == route.coordinates.count else { return [] }
        var best = (index: 0, distance: Double.infinity)
        for index in 0..<(route.nodeIDs.count - 1) {
            let a = route.coordinates[index], b = route.coordinates[index + 1]
            guard a.count == 2, b.count == 2 else { continue }
            let mid = ObstacleClustering.metres(obstacle.latitude, obstacle.longitude, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            let ends = min(ObstacleClustering.metres(obstacle.latitude, obstacle.longitude, a[0], a[1]),
                           ObstacleClustering.metres(obstacle.latitude, obstacle.longitude, b[0], b[1]))
            if min(mid, ends) < best.distance { best = (index, min(mid, ends)) }
        }
        return [route.nodeIDs[best.index], route.nodeIDs[best.index + 1]]
    }

    static func applyUpkeep(_ state: PathDraftState, _ event: PathDraftEvent) -> PathDraftState {
        var s = state
        switch event {
        case .pathApproved(let e): s.upkeep = PathUpkeepState(condition: PathCondition(rawValue: e.condition) ?? .medium)
        case .obstacleConfirmed(let e):
            guard var upkeep = s.upkeep else { break }
            let type = PathObstacleType(rawValue: e.type) ?? .other
            if let index = upkeep.obstacles.firstIndex(where: { $0.id == e.obstacleId }) {
                (upkeep.obstacles[index].sightings, upkeep.obstacles[index].confidence) = (e.sightings, e.confidence)
                upkeep.obstacles[index].lastConfirmedAt = max(upkeep.obstacles[index].lastConfirmedAt, e.confirmedAt)
            } else {
                upkeep.obstacles.append(OpenObstacle(id: e.obstacleId, type: type, latitude: e.latitude, longitude: e.longitude,
                                                     sightings: e.sightings, confidence: e.confidence, lastConfirmedAt: e.confirmedAt))
            }
            upkeep.goneReports?[e.obstacleId] = nil
            s.upkeep = upkeep
        case .obstacleResolved(let e):
            s.upkeep?.obstacles.removeAll { $0.id == e.obstacleId }
            s.upkeep?.goneReports?[e.obstacleId] = nil
        case .obstacleSighted(let e):
            guard var upkeep = s.upkeep else { break }
            var seen = (upkeep.rideSightings ?? []) + [e.sightingId]
            if seen.count > keptSightings { seen.removeFirst(seen.count - keptSightings) }
            upkeep.rideSightings = seen
            s.upkeep = upkeep
        case .obstacleGoneReported(let e):
            guard var upkeep = s.upkeep else { break }
            var reports = upkeep.goneReports ?? [:]
            reports[e.obstacleId, default: []].append(e.reporterId)
            upkeep.goneReports = reports
            s.upkeep = upkeep
        case .conditionReported(let e):
            guard var upkeep = s.upkeep else { break }
            upkeep.reports.append(ConditionReport(condition: e.condition, reportedAt: e.reportedAt))
            if upkeep.reports.count > keptReports { upkeep.reports.removeFirst(upkeep.reports.count - keptReports) }
            s.upkeep = upkeep
        case .statusOverridden(let e): s.upkeep?.override = e.condition
        case .statusChanged(let e): if let condition = PathCondition(rawValue: e.condition) { s.upkeep?.condition = condition }
        case .retired: s.upkeep?.retired = true
        default: break
        }
        return s
    }
}
