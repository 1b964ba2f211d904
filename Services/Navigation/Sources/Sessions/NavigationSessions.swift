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
    /// Tour stops reached in this batch.
    public var stopsReached: [UUID] = []
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

    /// Starts a tour session for `rider` from `from` through `tour`'s stops in order (the route leads through the first
    /// ``RoadRouter/maximumViaPoints`` + 1; reroutes lead on through the rest).
    public func startTour(_ tour: NavigableTour, from: RoadPoint, language: InstructionLanguage, rider: UUID) async throws -> SessionState {
        let stops = tour.stops.map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) }
        guard let last = stops.last else { throw SessionError.tourWithoutStops }
        let start = SessionStart(from: from, to: last, via: Array(stops.dropLast()), alternative: 0, language: language)
        return try await self.start(start, rider: rider, tour: TourPlan(tourId: tour.tourId, title: tour.title, stops: tour.stops))
    }

    /// Starts a session for `rider` on the route the search ranks at `start.alternative`.
    public func start(_ start: SessionStart, rider: UUID) async throws -> SessionState {
        try await self.start(start, rider: rider, tour: nil)
    }

    private func start(_ start: SessionStart, rider: UUID, tour: TourPlan?) async throws -> SessionState {
        let kind: NavigationSessionKind = tour == nil ? .route : .tour
        let points = Array(([start.from] + start.via + [start.to]).prefix(RoadRouter.maximumViaPoints + 2))
        let plan = try planner.plan(RouteQuery(points: points, alternatives: start.via.isEmpty ? start.alternative : 0, steps: true,
                                               language: start.language))
        guard plan.routes.count > start.alternative else { throw SessionError.noSuchAlternative(asked: start.alternative, found: plan.routes.count) }
        let route = SessionRoute(plan.routes[start.alternative])
        let id = UUID.v7(), at = now()
        let started = SessionStarted(sessionId: id, riderId: rider, kind: kind, targets: (start.via + [start.to]).map { [$0.latitude, $0.longitude] },
                                     alternative: start.alternative, language: start.language.rawValue, route: route,
                                     instruction: SessionTracker.departure(route, language: start.language), startedAt: at, tour: tour)
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
    ///
    /// An active session this instance holds is decided on as held, without reading its stream first: the append is
    /// at the held version, so if any instance appended since, it fails as a concurrent change and the batch is decided
    /// again on the stream read up to date. Anything else — a session not held, not active, a batch that changes
    /// nothing — is decided on the stream read up to date, so no refusal and no answer comes from a stale copy.
    public func track(_ id: UUID, rider: UUID, fixes: [PositionFix]) async throws -> TrackAnswer {
        // The fast path: the held session, active and the rider's, moved on by this batch.
        if let (held, version) = cached(id), held.exists, held.riderId == rider, held.status == .active {
            let (events, answer) = decide(fixes, held)
            if !events.isEmpty {
                do {
                    return try await append(events, answer, to: id, at: version)
                } catch let error as EventStoreError where error.isConcurrentChange {
                    // Another instance appended since: decide again on the stream read up to date.
                }
            }
        }
        var attempt = 0
        while true {
            let (loaded, version) = try await load(id)
            try SessionError.check(loaded, rider: rider)
            if loaded.status == .paused { throw SessionError.notActive(.paused) }
            let (events, answer) = decide(fixes, loaded)
            guard !events.isEmpty else { return answer }
            do {
                return try await append(events, answer, to: id, at: version)
            } catch let error as EventStoreError where error.isConcurrentChange && attempt < Self.retries {
                attempt += 1
            }
        }
    }

    private func append(_ events: [SessionEvent], _ answer: TrackAnswer, to id: UUID, at version: Int64) async throws -> TrackAnswer {
        let result = try await store.append(try Self.newEvents(events), to: NavigationSessionAggregate.streamID(id), expectedVersion: .exact(version))
        remember(id, answer.state, version: result.streamVersion)
        return answer
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

    /// Whether a fix at `time` is newer than the session's last, at the log's precision (microseconds): a session
    /// reloaded from the log holds its last fix's time rounded, and a resent fix must still compare as the same one.
    static func isNewer(_ time: Date, than last: Date?) -> Bool {
        last.map { time.microsecondsSince1970 > $0.microsecondsSince1970 } ?? true
    }

    /// The events a batch causes, and the answer.
    func decide(_ fixes: [PositionFix], _ loaded: SessionState) -> ([SessionEvent], TrackAnswer) {
        var state = loaded
        var events: [SessionEvent] = []
        var answer = TrackAnswer(state: loaded, applied: 0, instruction: nil, rerouted: nil, rerouteFailed: false, arrived: false)
        let language = InstructionLanguage(rawValue: state.language) ?? .en
        let fresh = fixes.sorted { $0.time < $1.time }.filter { Self.isNewer($0.time, than: state.lastFixAt) }
        guard state.status != .arrived, !fresh.isEmpty else { return ([], answer) }
        var due: IssuedInstruction?
        var rerouteInstruction: IssuedInstruction?
        var last = fresh[0]
        for fix in fresh {
            answer.applied += 1
            last = fix
            let outcome = tracker.track(fix, &state)
            let reached = stopsReached(fix, state)
            if !reached.isEmpty {
                events += reached
                state = reached.reduce(state, NavigationSessionAggregate.apply)
                answer.stopsReached += reached.compactMap { if case .stopReached(let e) = $0 { e.stopId } else { nil } }
            }
            switch outcome {
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

    /// The stops of a tour session `fix` reaches: inside a stop's trigger radius (at least 10 m), with a usable accuracy,
    /// not reached before in this session — each stop triggers once, so GPS jitter at the radius's edge cannot trigger
    /// it twice.
    private func stopsReached(_ fix: PositionFix, _ state: SessionState) -> [SessionEvent] {
        guard let tour = state.tour, (fix.accuracy ?? SessionTracker.assumedAccuracy) <= SessionTracker.usableAccuracy else { return [] }
        var reached = Set(state.stopsReached)
        var events: [SessionEvent] = []
        for (index, stop) in tour.stops.enumerated() where !reached.contains(stop.stopId) {
            let place = RoadPoint(latitude: stop.latitude, longitude: stop.longitude)
            guard fix.point.metres(to: place) <= max(stop.radius, 10) else { continue }
            reached.insert(stop.stopId)
            let next = tour.stops.first { !reached.contains($0.stopId) }
            let nextDistance = next.map { nextStop in
                let target = RoadPoint(latitude: nextStop.latitude, longitude: nextStop.longitude)
                let arrival = state.route.steps.filter { $0.kind == "arrive" && $0.along >= state.along }
                    .min { RoadPoint(latitude: $0.latitude, longitude: $0.longitude).metres(to: target) < RoadPoint(latitude: $1.latitude, longitude: $1.longitude).metres(to: target) }
                return arrival.map { $0.along - state.along } ?? fix.point.metres(to: target)
            }
            events += [
                .stopReached(StopReached(sessionId: state.sessionId, riderId: state.riderId, tourId: tour.tourId, stopId: stop.stopId, stopIndex: index,
                                         name: stop.name, nextStopId: next?.stopId, nextStopName: next?.name,
                                         nextStopDistanceM: nextDistance.map(Self.tenths), reachedAt: fix.time)),
                .publishedStop(TourStopReached(sessionId: state.sessionId, tourId: tour.tourId, stopId: stop.stopId, stopIndex: index,
                                               userId: state.riderId, reachedAt: fix.time)),
            ]
        }
        return events
    }

    /// The reroute events from `from` through the targets not yet reached, `nil` when no route is found.
    private func reroute(_ state: SessionState, from: RoadPoint, reason: NavigationRerouteReason, language: InstructionLanguage,
                         at: Date) -> [SessionEvent]? {
        let remaining = state.targets[min(state.targetsReached, state.targets.count - 1)...].map { RoadPoint(latitude: $0[0], longitude: $0[1]) }
        let points = Array(([from] + remaining).prefix(RoadRouter.maximumViaPoints + 2))
        guard let plan = try? planner.plan(RouteQuery(points: points, steps: true, language: language)), let best = plan.routes.first else {
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

    /// The session as this instance holds it (possibly behind the log: only for an append at its version).
    private func cached(_ id: UUID) -> (SessionState, Int64)? {
        cache.withLock { $0[id] }.map { ($0.state, $0.version) }
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
