import Contracts
import EventSourcing
import Foundation
import RoadNetwork

/// A session's events.
enum SessionEvent: Sendable, Hashable {
    case started(SessionStarted)
    case publishedStart(NavigationSessionStarted)
    case tracked(PositionsTracked)
    case rerouted(SessionRerouted)
    case publishedReroute(NavigationRerouted)
    case paused(SessionPaused)
    case resumed(SessionResumed)
    case arrived(NavigationArrived)
    case ended(NavigationSessionEnded)
    case stopReached(StopReached)
    case publishedStop(TourStopReached)
}

/// Where a session stands.
public enum SessionStatus: String, Codable, Sendable, Hashable {
    case active, paused, arrived, ended
}

/// A session folded from its events.
public struct SessionState: Codable, Sendable, Hashable {
    public var exists = false
    public var sessionId = UUID()
    public var riderId = UUID()
    public var kind = NavigationSessionKind.route
    public var status = SessionStatus.active
    public var language = "en"
    public var alternative = 0
    /// Via points then the destination, `[lat, lng]`; ``targetsReached`` of them are behind the rider.
    public var targets: [[Double]] = []
    public var targetsReached = 0
    public var route = SessionRoute.empty
    public var along = 0.0
    public var ridden = 0.0
    public var offRouteStreak = 0
    public var wrongWayStreak = 0
    public var offset: Double?
    public var fixes = 0
    public var lastFixAt: Date?
    public var reroutes = 0
    public var announced: Set<String> = []
    public var lastInstruction: IssuedInstruction?
    public var startedAt = Date(timeIntervalSince1970: 0)
    public var endedAt: Date?
    public var tripId: UUID?
    /// A tour session's tour, and the stops reached so far (each triggers once).
    public var tour: TourPlan?
    public var stopsReached: [UUID] = []

    /// The destination, `nil` before the start.
    public var destination: RoadPoint? { targets.last.map { RoadPoint(latitude: $0[0], longitude: $0[1]) } }
}

extension SessionRoute {
    /// No route (a session not started).
    static let empty = SessionRoute(points: [], cumulative: [], distance: 0, duration: 0, steps: [])
}

/// Commands other than position updates (those are tracked by ``SessionTracker`` and appended by ``NavigationSessions``).
enum SessionCommand: Sendable {
    case pause(rider: UUID, at: Date)
    case resume(rider: UUID, at: Date)
    case end(rider: UUID, tripId: UUID?, at: Date)
}

/// A navigation session: start, tracking, reroutes, pause, arrival, end — `apply` only; the decisions on positions
/// need the road network and live in ``SessionTracker`` and ``NavigationSessions``.
enum NavigationSessionAggregate: Aggregate {
    typealias State = SessionState
    typealias Event = SessionEvent
    typealias Command = SessionCommand

    static let initialState = SessionState()

    static let eventTypes = EventTypeMap<SessionEvent>()
        .registering(SessionStarted.self, SessionEvent.started)
        .registering(NavigationSessionStarted.self, SessionEvent.publishedStart)
        .registering(PositionsTracked.self, SessionEvent.tracked)
        .registering(SessionRerouted.self, SessionEvent.rerouted)
        .registering(NavigationRerouted.self, SessionEvent.publishedReroute)
        .registering(SessionPaused.self, SessionEvent.paused)
        .registering(SessionResumed.self, SessionEvent.resumed)
        .registering(NavigationArrived.self, SessionEvent.arrived)
        .registering(NavigationSessionEnded.self, SessionEvent.ended)
        .registering(StopReached.self, SessionEvent.stopReached)
        .registering(TourStopReached.self, SessionEvent.publishedStop)

    static func streamID(_ id: UUID) -> String { "navigation-session-\(id.uuidString.lowercased())" }

    static func payload(of event: SessionEvent) -> any EventPayload {
        switch event {
        case .started(let e): e
        case .publishedStart(let e): e
        case .tracked(let e): e
        case .rerouted(let e): e
        case .publishedReroute(let e): e
        case .paused(let e): e
        case .resumed(let e): e
        case .arrived(let e): e
        case .ended(let e): e
        case .stopReached(let e): e
        case .publishedStop(let e): e
        }
    }

    static func apply(_ state: SessionState, _ event: SessionEvent) -> SessionState {
        var state = state
        switch event {
        case .started(let e):
            state.exists = true
            state.sessionId = e.sessionId
            state.riderId = e.riderId
            state.kind = e.kind
            state.targets = e.targets
            state.alternative = e.alternative
            state.language = e.language
            state.route = e.route
            state.lastInstruction = e.instruction
            state.announced = ["0:depart"]
            state.startedAt = e.startedAt
            state.tour = e.tour
        case .stopReached(let e):
            if !state.stopsReached.contains(e.stopId) { state.stopsReached.append(e.stopId) }
        case .tracked(let e):
            state.fixes += e.fixes
            state.lastFixAt = e.lastFixAt
            state.along = e.along
            state.ridden = e.ridden
            state.offRouteStreak = e.offRouteStreak
            state.wrongWayStreak = e.wrongWayStreak
            state.targetsReached = e.targetsReached
            state.announced = Set(e.announced)
            state.offset = e.offset
            if let instruction = e.instruction { state.lastInstruction = instruction }
        case .rerouted(let e):
            state.route = e.route
            state.along = 0
            state.offRouteStreak = 0
            state.wrongWayStreak = 0
            state.reroutes = e.reroutes
            state.announced = ["0:depart"]
            state.lastInstruction = e.instruction
        case .paused:
            state.status = .paused
        case .resumed:
            state.status = .active
        case .arrived:
            state.status = .arrived
        case .ended(let e):
            state.status = .ended
            state.endedAt = e.endedAt
            state.tripId = e.tripId
        case .publishedStart, .publishedReroute, .publishedStop:
            break
        }
        return state
    }

    static func decide(_ command: SessionCommand, _ state: SessionState) throws -> [SessionEvent] {
        switch command {
        case .pause(let rider, let at):
            try SessionError.check(state, rider: rider)
            guard state.status != .paused else { return [] }
            guard state.status == .active else { throw SessionError.notActive(state.status) }
            return [.paused(SessionPaused(sessionId: state.sessionId, pausedAt: at))]
        case .resume(let rider, let at):
            try SessionError.check(state, rider: rider)
            guard state.status != .active else { return [] }
            guard state.status == .paused else { throw SessionError.notActive(state.status) }
            return [.resumed(SessionResumed(sessionId: state.sessionId, resumedAt: at))]
        case .end(let rider, let tripId, let at):
            try SessionError.check(state, rider: rider)
            return [.ended(NavigationSessionEnded(sessionId: state.sessionId, arrived: state.status == .arrived, distanceM: (state.ridden * 10).rounded() / 10,
                                                  durationS: max(0, at.timeIntervalSince(state.startedAt)).rounded(), reroutes: state.reroutes,
                                                  tripId: tripId, endedAt: at))]
        }
    }
}
