import Contracts
import EventSourcing
import Foundation
import Logging
import RoadNetwork
import Synchronization

/// What a session start asks for.
public struct SessionStart: Sendable, Hashable {
    public var from: RoadPoint
    public var to: RoadPoint
    public var via: [RoadPoint]
    /// Which route of the search (0 the best, up to 2; only 0 with via points).
    public var alternative: Int
    public var language: InstructionLanguage
}

/// The answer to a batch of fixes: the session after it and what happened in it.
public struct TrackAnswer: Sendable {
    public var state: SessionState
    /// Fixes applied (older than the session's newest fix are skipped: a resent batch changes nothing).
    public var applied: Int
    /// The instruction due now, if a new one is.
    public var instruction: IssuedInstruction?
    /// The reroute of this batch, if one happened.
    public var rerouted: NavigationRerouteReason?
    /// A reroute was due but no route was found from the rider's position (off the network): guidance goes on.
    public var rerouteFailed: Bool
    /// The rider arrived in this batch.
    public var arrived: Bool
}

/// Navigation sessions: start on a planned route, follow positions (``SessionTracker``), reroute, pause, resume,
/// end. The session is its stream (`navigation-session-<id>`); each instance keeps the sessions it served in memory
/// with their stream version and reads only the events appended since (by itself or another instance), so a position
/// update costs one short read and one append. A concurrent update from another instance is a version conflict:
/// reloaded and decided again.
public final class NavigationSessions: Sendable {
    let store: AnyEventStore
    let planner: RoutePlanner
    let tracker: SessionTracker
    let now: @Sendable () -> Date
    let logger: Logger
    private let cache = Mutex<[UUID: (state: SessionState, version: Int64)]>([:])

    /// Sessions held in memory per instance before the oldest are dropped (they reload from the log).
    static let cacheLimit = 20_000
    /// Fixes in one update.
    public static let maximumBatch = 100
    /// Conflicts retried before one reaches the client (409).
    static let retries = 5

    public init(store: AnyEventStore, planner: RoutePlanner, tracker: SessionTracker = SessionTracker(),
                now: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        self.store = store
        self.planner = planner
        self.tracker = tracker
        self.now = now
        self.logger = logger
    }

    /// Starts a session for `rider` on the route the search ranks at `start.alternative`.
    public func start(_ start: SessionStart, rider: UUID, kind: NavigationSessionKind = .route) async throws -> SessionState {
        let plan = try planner.plan(RouteQuery(points: [start.from] + start.via + [start.to], alternatives: start.via.isEmpty ? start.alternative : 0,
                                               steps: true, language: start.language))
        guard plan.routes.count > start.alternative else { throw SessionError.noSuchAlternative(asked: start.alternative, found: plan.routes.count) }
        let route = SessionRoute(plan.routes[start.alternative])
        let id = UUID.v7(), at = now()
        let started = SessionStarted(sessionId: id, riderId: rider, kind: kind, targets: (start.via + [start.to]).map { [$0.latitude, $0.longitude] },
                                     alternative: start.alternative, language: start.language.rawValue, route: route,
                                     instruction: SessionTracker.departure(route, language: start.language), startedAt: at)
        let events: [SessionEvent] = [
            .started(started),
            .publishedStart(NavigationSessionStarted(sessionId: id, kind: kind, alternative: start.alternative, plannedDistanceM: Self.tenths(route.distance),
                                                     plannedDurationS: route.duration.rounded(), viaPoints: start.via.count, startedAt: at)),
        ]
        let result = try await store.append(try Self.newEvents(events), to: NavigationSessionAggregate.streamID(id), expectedVersion: .noStream)
        let state = events.reduce(NavigationSessionAggregate.initialState, NavigationSessionAggregate.apply)
        remember(id, state, version: result.streamVersion)
        return state
    }

    /// The session `id` of `rider` now; ``SessionError/notFound`` for an unknown or someone else's.
    public func session(_ id: UUID, of rider: UUID) async throws -> SessionState {
        let (state, _) = try await load(id)
        guard state.exists, state.riderId == rider else { throw SessionError.notFound }
        return state
    }

    /// Applies `fixes` (sorted by time; those not newer than the session's newest fix skipped) to `rider`'s session.
    public func track(_ id: UUID, rider: UUID, fixes: [PositionFix]) async throws -> TrackAnswer {
        var attempt = 0
        while true {
            let (loaded, version) = try await load(id)
            try SessionError.check(loaded, rider: rider)
            if loaded.status == .paused { throw SessionError.notActive(.paused) }
            let (events, answer) = decide(fixes, loaded)
            guard !events.isEmpty else { return answer }
            do {
                let result = try await store.append(try Self.newEvents(events), to: NavigationSessionAggregate.streamID(id), expectedVersion: .exact(version))
                remember(id, answer.state, version: result.streamVersion)
                return answer
            } catch let error as EventStoreError where error.isConcurrentChange && attempt < Self.retries {
                attempt += 1
            }
        }
    }

    /// Pauses, resumes or ends `rider`'s session.
    func execute(_ command: SessionCommand, on id: UUID) async throws -> SessionState {
        var attempt = 0
        while true {
            let (loaded, version) = try await load(id)
            let events = try NavigationSessionAggregate.decide(command, loaded)
            guard !events.isEmpty else { return loaded }
            let state = events.reduce(loaded, NavigationSessionAggregate.apply)
            do {
                let result = try await store.append(try Self.newEvents(events), to: NavigationSessionAggregate.streamID(id), expectedVersion: .exact(version))
                remember(id, state, version: result.streamVersion)
                return state
            } catch let error as EventStoreError where error.isConcurrentChange && attempt < Self.retries {
                attempt += 1
            }
        }
    }

    /// The events a batch causes, and the answer.
    func decide(_ fixes: [PositionFix], _ loaded: SessionState) -> ([SessionEvent], TrackAnswer) {
        var state = loaded
        var events: [SessionEvent] = []
        var answer = TrackAnswer(state: loaded, applied: 0, instruction: nil, rerouted: nil, rerouteFailed: false, arrived: false)
        let language = InstructionLanguage(rawValue: state.language) ?? .en
        let fresh = fixes.sorted { $0.time < $1.time }.filter { fix in state.lastFixAt.map { fix.time > $0 } ?? true }
        guard state.status != .arrived, !fresh.isEmpty else { return ([], answer) }
        var due: IssuedInstruction?
        var rerouteInstruction: IssuedInstruction?
        var last = fresh[0]
        for fix in fresh {
            answer.applied += 1
            last = fix
            switch tracker.track(fix, &state) {
            case .tracked:
                // Announcements are checked fix by fix, so a maneuver between two fixes of a batch is not skipped
                // for the one after it; the newest is the one due.
                due = tracker.due(&state, speed: fix.speed, language: language) ?? due
                continue
            case .arrived:
                answer.arrived = true
            case .reroute(let reason, let from):
                if let rerouted = reroute(state, from: from, reason: reason, language: language, at: fix.time) {
                    events += rerouted
                    state = rerouted.reduce(state, NavigationSessionAggregate.apply)
                    answer.rerouted = reason
                    rerouteInstruction = state.lastInstruction
                    due = nil
                } else {
                    state.offRouteStreak = 0
                    state.wrongWayStreak = 0
                    answer.rerouteFailed = true
                }
                continue
            }
            break
        }
        if answer.arrived { due = SessionTracker.arrival(state, language: language) }
        answer.instruction = due ?? rerouteInstruction
        let tracked = PositionsTracked(sessionId: state.sessionId, riderId: state.riderId, fixes: fresh.count, lastFixAt: last.time,
                                       along: state.along, ridden: state.ridden, offRouteStreak: state.offRouteStreak,
                                       wrongWayStreak: state.wrongWayStreak, targetsReached: state.targetsReached,
                                       announced: state.announced.sorted(), instruction: due, offset: state.offset.map(Self.tenths))
        events.append(.tracked(tracked))
        if answer.arrived {
            events.append(.arrived(NavigationArrived(sessionId: state.sessionId, distanceM: Self.tenths(state.ridden),
                                                     durationS: max(0, last.time.timeIntervalSince(state.startedAt)).rounded(),
                                                     reroutes: state.reroutes, arrivedAt: last.time)))
        }
        answer.state = events.reduce(loaded, NavigationSessionAggregate.apply)
        return (events, answer)
    }

    /// The reroute events from `from` through the targets not yet reached, `nil` when no route is found.
    private func reroute(_ state: SessionState, from: RoadPoint, reason: NavigationRerouteReason, language: InstructionLanguage,
                         at: Date) -> [SessionEvent]? {
        let remaining = state.targets[min(state.targetsReached, state.targets.count - 1)...].map { RoadPoint(latitude: $0[0], longitude: $0[1]) }
        guard let plan = try? planner.plan(RouteQuery(points: [from] + remaining, steps: true, language: language)), let best = plan.routes.first else {
            return nil
        }
        let route = SessionRoute(best)
        let reroutes = state.reroutes + 1
        return [
            .rerouted(SessionRerouted(sessionId: state.sessionId, riderId: state.riderId, reason: reason, route: route, reroutes: reroutes,
                                      instruction: SessionTracker.departure(route, language: language), reroutedAt: at)),
            .publishedReroute(NavigationRerouted(sessionId: state.sessionId, reason: reason, reroutes: reroutes, distanceM: Self.tenths(route.distance),
                                                 durationS: route.duration.rounded(), reroutedAt: at)),
        ]
    }

    /// The session from the cache, brought up to date with the events appended since (by any instance).
    func load(_ id: UUID) async throws -> (SessionState, Int64) {
        let cached = cache.withLock { $0[id] }
        var state = cached?.state ?? NavigationSessionAggregate.initialState
        var version = cached?.version ?? 0
        let stream = NavigationSessionAggregate.streamID(id)
        for envelope in try await store.readStream(stream, fromVersion: version + 1) {
            if let event = try NavigationSessionAggregate.eventTypes.decode(envelope) { state = NavigationSessionAggregate.apply(state, event) }
            version = envelope.streamVersion
        }
        if version != cached?.version, state.exists { remember(id, state, version: version) }
        return (state, version)
    }

    private func remember(_ id: UUID, _ state: SessionState, version: Int64) {
        cache.withLock { cache in
            if state.status == .ended {
                cache[id] = nil
                return
            }
            if cache.count >= Self.cacheLimit, cache[id] == nil {
                // Drop an arbitrary tenth: they reload from the log when used again.
                for key in cache.keys.prefix(Self.cacheLimit / 10) { cache[key] = nil }
            }
            cache[id] = (state, version)
        }
    }

    static func newEvents(_ events: [SessionEvent]) throws -> [NewEvent] {
        try events.map { try NavigationSessionAggregate.payload(of: $0).newEvent() }
    }

    static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
