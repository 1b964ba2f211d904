import Contracts
import EventSourcing
import Foundation

// The navigation session's own events (stream `navigation-session-<id>`), kept in the service's log; only the
// published language (`Shared/Contracts/Navigation`) leaves it. A session's route is stored whole in the event that
// gives it, so any instance continues the session from the log.

/// An instruction the session gave (and pushed on the rider's stream).
public struct IssuedInstruction: Codable, Sendable, Hashable {
    /// The step of the current route it announces.
    public var stepIndex: Int
    /// `depart`, `alert`, `pre-turn`, `now` or `arrive`.
    public var phase: String
    public var text: String
    /// The maneuver's OSRM type and modifier.
    public var maneuver: String
    public var modifier: String?
    /// Metres to the maneuver when it was given.
    public var distance: Double
}

/// A rider started a session on a route.
struct SessionStarted: EventPayload, Hashable {
    static let eventType = "SessionStarted"
    var sessionId: UUID
    var riderId: UUID
    var kind: NavigationSessionKind
    /// The points still to reach after the origin: via points in order, then the destination, `[lat, lng]`.
    var targets: [[Double]]
    var alternative: Int
    var language: String
    var route: SessionRoute
    /// The first instruction ("Head north on …").
    var instruction: IssuedInstruction
    var startedAt: Date
    /// A tour session's tour: its stops in order (the route leads through them).
    var tour: TourPlan?
}

/// The tour a tour session guides through.
public struct TourPlan: Codable, Sendable, Hashable {
    public var tourId: UUID
    public var title: String
    public var stops: [NavigableStop]
}

/// A stop of the session's tour was reached, with what the traveller hears and the way on to the next stop.
struct StopReached: EventPayload, Hashable {
    static let eventType = "StopReached"
    var sessionId: UUID
    var riderId: UUID
    var tourId: UUID
    var stopId: UUID
    var stopIndex: Int
    var name: String
    /// The next stop not yet reached, and the metres to it along the route.
    var nextStopId: UUID?
    var nextStopName: String?
    var nextStopDistanceM: Double?
    var reachedAt: Date
}

/// A batch of position fixes was applied: where the rider is along the route now, and what was due.
struct PositionsTracked: EventPayload, Hashable {
    static let eventType = "PositionsTracked"
    var sessionId: UUID
    var riderId: UUID
    /// Fixes in the batch (usable or not) and the newest fix's time.
    var fixes: Int
    var lastFixAt: Date
    /// Metres along the current route, metres ridden in total.
    var along: Double
    var ridden: Double
    var offRouteStreak: Int
    var wrongWayStreak: Int
    /// Targets (via points, destination) reached so far.
    var targetsReached: Int
    /// Announcements made on the current route, `step:phase`.
    var announced: [String]
    /// The instruction due after this batch, if a new one was.
    var instruction: IssuedInstruction?
    /// Metres from the route of the newest usable fix.
    var offset: Double?
}

/// The session got a new route from the rider's position.
struct SessionRerouted: EventPayload, Hashable {
    static let eventType = "SessionRerouted"
    var sessionId: UUID
    var riderId: UUID
    var reason: NavigationRerouteReason
    var route: SessionRoute
    var reroutes: Int
    var instruction: IssuedInstruction
    var reroutedAt: Date
}

/// The rider paused guidance (fixes are refused until resumed).
struct SessionPaused: EventPayload, Hashable {
    static let eventType = "SessionPaused"
    var sessionId: UUID
    var pausedAt: Date
}

/// The rider resumed guidance.
struct SessionResumed: EventPayload, Hashable {
    static let eventType = "SessionResumed"
    var sessionId: UUID
    var resumedAt: Date
}

extension NavigationSessionStarted: EventPayload {}
extension NavigationRerouted: EventPayload {}
extension NavigationArrived: EventPayload {}
extension NavigationSessionEnded: EventPayload {}
extension TourStopReached: EventPayload {}

// `PositionsTracked` is appended for every batch of fixes of every session: it (and the instruction it may carry)
// writes its canonical JSON itself (``JSONWritable``, members in sorted order as `ContractJSON` writes them), the same
// bytes without `Codable`'s cost; debug builds check every one against `JSONEncoder`.

extension IssuedInstruction: JSONWritable {
    public static var jsonStyle: JSONOutput.Style { .contract }

    public func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("distance", distance)
            output.member("maneuver", maneuver)
            output.member("modifier", modifier)
            output.member("phase", phase)
            output.member("stepIndex", stepIndex)
            output.member("text", text)
        }
    }
}

extension PositionsTracked: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .contract }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("along", along)
            output.member("announced", announced)
            output.member("fixes", fixes)
            output.member("instruction", instruction)
            output.member("lastFixAt", lastFixAt)
            output.member("offRouteStreak", offRouteStreak)
            output.member("offset", offset)
            output.member("ridden", ridden)
            output.member("riderId", riderId)
            output.member("sessionId", sessionId)
            output.member("targetsReached", targetsReached)
            output.member("wrongWayStreak", wrongWayStreak)
        }
    }
}
