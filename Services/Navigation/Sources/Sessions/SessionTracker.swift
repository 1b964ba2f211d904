import Contracts
import Foundation
import Geo
import RoadNetwork

/// One position fix as a client sends it.
public struct PositionFix: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Horizontal accuracy, metres (68 %); `nil`: unknown (read as ``SessionTracker/assumedAccuracy``).
    public var accuracy: Double?
    /// Metres per second; `nil`: unknown.
    public var speed: Double?
    /// Degrees clockwise from north of travel; `nil`: unknown.
    public var course: Double?
    public var time: Date

    public init(latitude: Double, longitude: Double, accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil, time: Date) {
        (self.latitude, self.longitude, self.accuracy, self.speed, self.course, self.time) = (latitude, longitude, accuracy, speed, course, time)
    }

    var point: RoadPoint { RoadPoint(latitude: latitude, longitude: longitude) }
}

/// Follows a rider along a session's route fix by fix (pure: no I/O; a reroute is asked of the caller):
///
/// - a fix is *usable* when its accuracy is at most ``usableAccuracy`` (poor fixes are counted and otherwise ignored,
///   so they never move progress or trigger a reroute);
/// - a usable fix is matched to the nearest point of the route not more than ``backtrack`` metres behind the progress;
///   farther from the route than max(``offRouteMinimum``, accuracy + ``offRouteMargin``) counts toward off-route, and
///   ``offRouteFixes`` such fixes in a row ask for a reroute (any on-route fix resets the count);
/// - riding against the route — course more than ``wrongWayDegrees`` from the route's bearing at speed at least
///   ``wrongWaySpeed`` — for ``offRouteFixes`` usable fixes in a row asks for a reroute too;
/// - arrival: within max(``arrivalRadius``, the fix's accuracy up to 40 m) of the destination, or the progress within
///   ``arrivalRadius`` of the route's end;
/// - instructions: the phases of ``Announcements`` for the next maneuver (by time at the fix's speed, with minimum
///   distances), each given once; after a batch the most urgent new one is the instruction due.
public struct SessionTracker: Sendable {
    public static let usableAccuracy = 50.0
    public static let assumedAccuracy = 10.0
    public static let backtrack = 50.0
    public static let offRouteMinimum = 25.0
    public static let offRouteMargin = 15.0
    public static let offRouteFixes = 3
    public static let wrongWayDegrees = 135.0
    public static let wrongWaySpeed = 1.5
    public static let arrivalRadius = 20.0

    public let announcements: Announcements

    public init(announcements: Announcements = Announcements()) {
        self.announcements = announcements
    }

    /// What one fix means for the session.
    public enum Outcome: Sendable, Hashable {
        /// Counted; nothing to do (poor accuracy, or tracked on the route).
        case tracked
        /// The rider left the route or rides it the wrong way: reroute from `from` (the fix, moved a few metres ahead
        /// along its course so the new route starts the way the rider is heading).
        case reroute(NavigationRerouteReason, from: RoadPoint)
        /// The rider reached the destination.
        case arrived
    }

    /// Applies `fix` to `state` (progress, streaks, targets, announcements) and says what follows.
    public func track(_ fix: PositionFix, _ state: inout SessionState) -> Outcome {
        state.lastFixAt = fix.time
        let accuracy = fix.accuracy ?? Self.assumedAccuracy
        guard accuracy <= Self.usableAccuracy, let destination = state.destination else { return .tracked }
        let point = fix.point
        guard let match = state.route.match(point, notBefore: max(0, state.along - Self.backtrack)) else { return .tracked }
        let threshold = max(Self.offRouteMinimum, accuracy + Self.offRouteMargin)
        state.offset = match.distance
        if match.distance > threshold {
            state.offRouteStreak += 1
            state.wrongWayStreak = 0
            return state.offRouteStreak >= Self.offRouteFixes ? .reroute(.offRoute, from: Self.ahead(fix)) : .tracked
        }
        state.offRouteStreak = 0
        if let course = fix.course, let speed = fix.speed, speed >= Self.wrongWaySpeed, Self.angle(course, match.bearing) > Self.wrongWayDegrees {
            state.wrongWayStreak += 1
            if state.wrongWayStreak >= Self.offRouteFixes { return .reroute(.wrongWay, from: Self.ahead(fix)) }
        } else {
            state.wrongWayStreak = 0
        }
        if match.along > state.along { state.ridden += match.along - state.along }
        state.along = match.along
        state.targetsReached = max(state.targetsReached, reachedVias(state))
        let arrivalRadius = max(Self.arrivalRadius, min(accuracy, 40))
        if point.metres(to: destination) <= arrivalRadius || state.route.distance - state.along <= Self.arrivalRadius {
            state.targetsReached = state.targets.count
            return .arrived
        }
        return .tracked
    }

    /// The instruction due now on `state`'s route, if one was not given yet; marks it (and the earlier phases of the
    /// same maneuver) as given.
    public func due(_ state: inout SessionState, speed: Double?, language: InstructionLanguage) -> IssuedInstruction? {
        let route = state.route
        let next = route.stepIndex(at: state.along) + 1
        guard route.steps.indices.contains(next), let step = route.routeStep(next) else { return nil }
        let remaining = max(0, route.steps[next].along - state.along)
        guard let phase = announcements.phase(remaining: remaining, speed: speed) else { return nil }
        let key = "\(next):\(phase.rawValue)"
        guard !state.announced.contains(key), !laterPhaseGiven(next, phase, state.announced) else { return nil }
        for earlier in Announcements.Phase.allCases.prefix(through: Announcements.Phase.allCases.firstIndex(of: phase)!) {
            state.announced.insert("\(next):\(earlier.rawValue)")
        }
        let final = route.steps[next].final
        return IssuedInstruction(stepIndex: next, phase: phase.rawValue,
                                 text: StepInstructions.announcement(step, metres: remaining, phase: phase, language: language, finalArrival: final),
                                 maneuver: route.steps[next].kind, modifier: route.steps[next].modifier, distance: (remaining * 10).rounded() / 10)
    }

    /// The arrival instruction ("You have arrived at your destination").
    public static func arrival(_ state: SessionState, language: InstructionLanguage) -> IssuedInstruction {
        let last = max(0, state.route.steps.count - 1)
        let text = state.route.routeStep(last).map { StepInstructions.text($0, language: language, finalArrival: true) } ?? ""
        return IssuedInstruction(stepIndex: last, phase: "arrive", text: text, maneuver: "arrive", modifier: nil, distance: 0)
    }

    /// The departure instruction of a (new) route ("Head north on …").
    public static func departure(_ route: SessionRoute, language: InstructionLanguage) -> IssuedInstruction {
        let text = route.routeStep(0).map { StepInstructions.text($0, language: language) } ?? ""
        return IssuedInstruction(stepIndex: 0, phase: "depart", text: text, maneuver: "depart", modifier: route.steps.first?.modifier, distance: 0)
    }

    private func laterPhaseGiven(_ step: Int, _ phase: Announcements.Phase, _ announced: Set<String>) -> Bool {
        let all = Announcements.Phase.allCases
        return all[(all.firstIndex(of: phase)! + 1)...].contains { announced.contains("\(step):\($0.rawValue)") }
    }

    /// Via points passed: non-final arrivals behind the progress, counted on top of those reached on earlier routes.
    private func reachedVias(_ state: SessionState) -> Int {
        let passed = state.route.steps.filter { $0.kind == "arrive" && !$0.final && $0.along <= state.along + Self.arrivalRadius }.count
        let onThisRoute = state.route.steps.filter { $0.kind == "arrive" && !$0.final }.count
        // The current route leads through the targets not yet reached when it was planned.
        return state.targets.count - 1 - onThisRoute + passed
    }

    /// The fix moved ahead along its course (5–25 m, three seconds at its speed), or the fix itself without a course.
    static func ahead(_ fix: PositionFix) -> RoadPoint {
        guard let course = fix.course, let speed = fix.speed, speed >= 1, course.isFinite, let start = fix.point.coordinate else { return fix.point }
        let moved = start.destination(bearing: course, distance: min(25, max(5, speed * 3)))
        return RoadPoint(latitude: moved.latitude, longitude: moved.longitude)
    }

    /// The angle between two bearings, 0…180.
    static func angle(_ a: Double, _ b: Double) -> Double {
        let d = abs((a - b).truncatingRemainder(dividingBy: 360))
        return d > 180 ? 360 - d : d
    }
}
