import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// A traveller walking one tour: stream `progress-<tourId>-<userId>`.
///
/// Completions carry the client's clock (`completedAt`), so stops completed offline can arrive later in a batch: per stop
/// the latest `completedAt` wins, an equal or older one changes nothing (a batch sent twice appends nothing). When every
/// stop of the tour's published revision is complete, `TourCompleted` follows once.
public enum TourProgressAggregate: Aggregate {
    public enum Event: Sendable {
        case started(TourStarted)
        case stopCompleted(StopCompleted)
        case completed(TourCompleted)
    }

    public struct State: Codable, Sendable, Hashable {
        public var startedAt: Date?
        public var revision = 0
        /// Stop id → latest client completion time.
        public var stops: [UUID: Date] = [:]
        public var completedAt: Date?
    }

    /// What a command needs to know of the tour (from the discovery read model at command time).
    public struct TourFacts: Sendable, Hashable {
        public var tourId: UUID
        public var guideId: UUID
        public var revision: Int
        public var stopIds: [UUID]

        public init(tourId: UUID, guideId: UUID, revision: Int, stopIds: [UUID]) {
            self.tourId = tourId
            self.guideId = guideId
            self.revision = revision
            self.stopIds = stopIds
        }
    }

    public struct Completion: Sendable, Hashable {
        public var stopId: UUID
        public var completedAt: Date

        public init(stopId: UUID, completedAt: Date) {
            self.stopId = stopId
            self.completedAt = completedAt
        }
    }

    public enum Command: Sendable {
        /// Start (or resume: starting again changes nothing).
        case start(tour: TourFacts, user: UUID, at: Date)
        /// Record completions (one live, or a batch recorded offline); starts the tour first if needed.
        case complete(tour: TourFacts, user: UUID, completions: [Completion], at: Date)
    }

    public static let initialState = State()
    public static let eventTypes = EventTypeMap<Event>()
        .registering(TourStarted.self) { .started($0) }
        .registering(StopCompleted.self) { .stopCompleted($0) }
        .registering(TourCompleted.self) { .completed($0) }

    public static func streamID(tour: UUID, user: UUID) -> String {
        "progress-\(tour.uuidString.lowercased())-\(user.uuidString.lowercased())"
    }

    public static func apply(_ state: State, _ event: Event) -> State {
        var state = state
        switch event {
        case .started(let e):
            state.startedAt = e.startedAt
            state.revision = e.revision
        case .stopCompleted(let e):
            state.stops[e.stopId] = max(state.stops[e.stopId] ?? e.completedAt, e.completedAt)
        case .completed(let e):
            state.completedAt = e.completedAt
        }
        return state
    }

    public static func decide(_ command: Command, _ state: State) throws -> [Event] {
        switch command {
        case .start(let tour, let user, let at):
            guard state.startedAt == nil else { return [] }
            return [.started(TourStarted(tourId: tour.tourId, userId: user, guideId: tour.guideId, revision: tour.revision, startedAt: at))]
        case .complete(let tour, let user, let completions, let at):
            let known = Set(tour.stopIds)
            let unknown = completions.filter { !known.contains($0.stopId) }
            guard unknown.isEmpty else { throw ProgressError.unknownStops(unknown.map(\.stopId)) }
            var events: [Event] = []
            if state.startedAt == nil {
                events.append(.started(TourStarted(tourId: tour.tourId, userId: user, guideId: tour.guideId, revision: tour.revision,
                                                   startedAt: completions.map(\.completedAt).min() ?? at)))
            }
            // Latest per stop within the batch, then only what moves a stop forward.
            var latest: [UUID: Date] = [:]
            for completion in completions { latest[completion.stopId] = max(latest[completion.stopId] ?? completion.completedAt, completion.completedAt) }
            for stopId in tour.stopIds {
                guard let time = latest[stopId], state.stops[stopId].map({ time > $0 }) ?? true else { continue }
                events.append(.stopCompleted(StopCompleted(tourId: tour.tourId, userId: user, stopId: stopId, completedAt: time, recordedAt: at)))
            }
            let after = events.reduce(state, apply)
            if after.completedAt == nil, known.isSubset(of: after.stops.keys) {
                let finished = tour.stopIds.compactMap { after.stops[$0] }.max() ?? at
                events.append(.completed(TourCompleted(tourId: tour.tourId, userId: user, guideId: tour.guideId, revision: tour.revision,
                                                       completedAt: finished)))
            }
            return events
        }
    }

    public static func payload(of event: Event) -> any EventPayload {
        switch event {
        case .started(let e): e
        case .stopCompleted(let e): e
        case .completed(let e): e
        }
    }
}

/// Why a progress command was refused.
public enum ProgressError: Error, Sendable, Hashable, ProblemConvertible {
    case unknownStops([UUID])

    /// 422 `invalid-field`: one `unknown-stop` field error per id.
    public var problem: Problem {
        switch self {
        case .unknownStops(let ids):
            Problem.unprocessable(fieldErrors: ids.map {
                FieldError(field: "stopId", code: "unknown-stop", message: "\($0.uuidString.lowercased()) is not a stop of this tour")
            })
        }
    }
}
