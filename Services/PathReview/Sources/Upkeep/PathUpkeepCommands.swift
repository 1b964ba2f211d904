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
    /// Open obstacles' ids.
    public var openObstacles: Set<UUID> = []
    public var retired = false
}


/// Why an upkeep command was refused.
public enum UpkeepError: Error, Sendable, Hashable, ProblemConvertible {
    /// No approved path has this id (never approved, or not a path).
    case unknownPath
    /// The path was retired: retirement is final.
    case retired

    public var problem: Problem {
        switch self {
        case .unknownPath: .notFound("no such approved path", code: "unknown-path")
        case .retired: .conflict("The path was retired; it takes no more reports or changes.", code: "path-retired")
        }
    }
}

/// The upkeep rules on a path's stream (issue 20 point 6): any signed-in cyclist reports a condition; the published
/// condition follows ``PathStatusRule`` unless a moderator's override holds; a moderator sets or lifts the override, or
/// retires the path (final; its open obstacles are resolved with it).
extension PathDraftAggregate {
    /// Condition reports a path's state keeps.
    public static let keptReports = 200

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
        case let .retire(_, at):
            let resolved = upkeep.openObstacles.sorted { $0.uuidString < $1.uuidString }.map {
                PathDraftEvent.obstacleResolved(PathObstacleResolved(obstacleId: $0, pathId: id, resolution: .pathRetired, resolvedAt: at))
            }
            return resolved + [.retired(PathRetired(pathId: id, retiredAt: at))]
        default:
            return try decide(command, s)
        }
    }

    static func applyUpkeep(_ state: PathDraftState, _ event: PathDraftEvent) -> PathDraftState {
        var s = state
        switch event {
        case .pathApproved(let e): s.upkeep = PathUpkeepState(condition: PathCondition(rawValue: e.condition) ?? .medium)
        case .obstacleConfirmed(let e): s.upkeep?.openObstacles.insert(e.obstacleId)
        case .obstacleResolved(let e): s.upkeep?.openObstacles.remove(e.obstacleId)
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
