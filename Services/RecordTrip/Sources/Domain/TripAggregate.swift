import Contracts
import EventSourcing
import Foundation
import RecordTripAnalysis

/// Where a trip stands.
public enum TripStatus: String, Codable, Sendable, Hashable {
    case none
    case recording
    /// Finish requested; the analysis has not landed yet.
    case analysing
    case finished
    case deleted
}

/// A trip folded from its stream: who rides it, which chunks arrived (sequence → digest), the sample counts and time
/// span that the limits check, and once finished its figures, sealed analysis, weather and review. The samples
/// themselves stay in the log (the finish command reads them from there): the state stays small.
public struct TripState: Codable, Sendable, Hashable {
    public var tripId: UUID?
    public var riderId: UUID?
    public var navigationSessionId: UUID?
    public var source: String = "recorded"
    public var status: TripStatus = .none
    public var createdAt: Date?
    public var chunks: [Int: String] = [:]
    public var fixCount = 0
    public var accelerationCount = 0
    public var firstFixTime: Double?
    public var lastFixTime: Double?
    public var analysis: TripAnalysed?
    public var finishedAt: Date?
    public var weather: WeatherObservation?
    public var review: TripReviewed?

    /// Creates it.
    public init() {}

    /// Whether `caller` may change it: it exists, is not deleted, and is theirs.
    func isOwned(by caller: UUID) -> Bool { status != .none && status != .deleted && riderId == caller }
}

/// One trip's events.
public enum TripEvent: Sendable {
    case started(TripStarted)
    case samples(TripSamplesReceived)
    case finishRequested(TripFinishRequested)
    case analysed(TripAnalysed)
    case finished(TripFinished)
    case weather(TripWeatherRecorded)
    case reviewed(TripReviewed)
    case obstacle(ObstacleConfirmed)
    case draft(RideSubmittedAsPathDraft)
    case deleted(TripDeleted)
}

/// What callers ask of a trip. Commands other than `start` carry the caller, who must be the rider (else 404).
public enum TripCommand: Sendable {
    case start(TripStarted)
    case addChunk(TripSamplesReceived, caller: UUID, limits: TripLimits)
    case requestFinish(caller: UUID, at: Date)
    case recordWeather(TripWeatherRecorded)
    case delete(caller: UUID, reason: String, at: Date)
}

/// A trip's rules as pure functions: chunks are idempotent by sequence number and digest, tolerate any order, stop at
/// finish and at the limits; a finished trip is analysed once; deleting is final.
public enum TripAggregate: Aggregate {
    public typealias State = TripState
    public typealias Event = TripEvent
    public typealias Command = TripCommand

    public static var initialState: TripState { TripState() }

    public static let eventTypes = EventTypeMap<TripEvent>()
        .registering(TripStarted.self, TripEvent.started)
        .registering(TripSamplesReceived.self, TripEvent.samples)
        .registering(TripFinishRequested.self, TripEvent.finishRequested)
        .registering(TripAnalysed.self, TripEvent.analysed)
        .registering(TripFinished.self, TripEvent.finished)
        .registering(TripWeatherRecorded.self, TripEvent.weather)
        .registering(TripReviewed.self, TripEvent.reviewed)
        .registering(ObstacleConfirmed.self, TripEvent.obstacle)
        .registering(RideSubmittedAsPathDraft.self, TripEvent.draft)
        .registering(TripDeleted.self, TripEvent.deleted)

    /// The trip's stream, `trip-<id>`.
    public static func streamID(_ tripId: UUID) -> String { "trip-\(tripId.uuidString.lowercased())" }

    public static func payload(of event: TripEvent) -> any EventPayload {
        switch event {
        case .started(let e): e
        case .samples(let e): e
        case .finishRequested(let e): e
        case .analysed(let e): e
        case .finished(let e): e
        case .weather(let e): e
        case .reviewed(let e): e
        case .obstacle(let e): e
        case .draft(let e): e
        case .deleted(let e): e
        }
    }

    public static func apply(_ state: TripState, _ event: TripEvent) -> TripState {
        var s = state
        switch event {
        case .started(let e):
            (s.tripId, s.riderId, s.navigationSessionId, s.source) = (e.tripId, e.riderId, e.navigationSessionId, e.source)
            (s.status, s.createdAt) = (.recording, e.startedAt)
        case .samples(let e):
            s.chunks[e.sequence] = e.digest
            s.fixCount += e.fixCount
            s.accelerationCount += e.accelerationCount
            s.firstFixTime = [s.firstFixTime, e.firstFixTime].compactMap { $0 }.min()
            s.lastFixTime = [s.lastFixTime, e.lastFixTime].compactMap { $0 }.max()
        case .finishRequested: s.status = .analysing
        case .analysed(let e): s.analysis = e
        case .finished(let e): (s.status, s.finishedAt) = (.finished, e.finishedAt)
        case .weather(let e): s.weather = e.weather
        case .reviewed(let e): s.review = e
        case .obstacle, .draft: break
        case .deleted: s.status = .deleted
        }
        return s
    }

    public static func decide(_ command: TripCommand, _ s: TripState) throws -> [TripEvent] {
        switch command {
        case .start(let started):
            guard s.status == .none else { throw TripError.concurrentChange }
            return [.started(started)]
        case let .addChunk(chunk, caller, limits):
            return try decideChunk(chunk, caller: caller, limits: limits, s)
        case let .requestFinish(caller, at):
            guard try mayFinish(s, caller: caller) else { return [] }
            return [.finishRequested(TripFinishRequested(tripId: s.tripId!, requestedAt: at))]
        case .recordWeather(let recorded):
            guard s.status == .finished, s.weather == nil else { return [] }
            return [.weather(recorded)]
        case let .delete(caller, reason, at):
            guard let rider = s.riderId, s.isOwned(by: caller) else { throw TripError.notFound }
            return [.deleted(TripDeleted(tripId: s.tripId!, riderId: rider, reason: reason, deletedAt: at))]
        }
    }

    /// The same chunk again changes nothing; other samples under a received sequence number are 409; a finished trip
    /// takes none (409); the totals must stay within `limits` (413 samples, 422 duration).
    static func decideChunk(_ chunk: TripSamplesReceived, caller: UUID, limits: TripLimits, _ s: TripState) throws -> [TripEvent] {
        guard s.isOwned(by: caller) else { throw TripError.notFound }
        if let digest = s.chunks[chunk.sequence] {
            guard digest == chunk.digest else { throw TripError.chunkConflict(sequence: chunk.sequence) }
            return []
        }
        guard s.status == .recording else { throw TripError.alreadyFinished }
        try checkLimits(fixes: s.fixCount + chunk.fixCount, acceleration: s.accelerationCount + chunk.accelerationCount,
                        first: [s.firstFixTime, chunk.firstFixTime].compactMap { $0 }.min(),
                        last: [s.lastFixTime, chunk.lastFixTime].compactMap { $0 }.max(), limits: limits)
        return [.samples(chunk)]
    }

    /// 413 `trip-too-large` past the sample limits, 422 `trip-too-long` past the duration.
    public static func checkLimits(fixes: Int, acceleration: Int, first: Double?, last: Double?, limits: TripLimits) throws {
        guard fixes <= limits.maximumFixes else {
            throw TripError.tooManySamples("The trip would hold \(fixes) fixes; at most \(limits.maximumFixes) are allowed.")
        }
        guard acceleration <= limits.maximumAccelerationSamples else {
            throw TripError.tooManySamples(
                "The trip would hold \(acceleration) accelerometer samples; at most \(limits.maximumAccelerationSamples) are allowed.")
        }
        if let first, let last, last - first > limits.maximumDurationS {
            throw TripError.tooLong(seconds: last - first, limit: limits.maximumDurationS)
        }
    }

    /// Whether a finish may be recorded: 404 for someone else's or a deleted trip, `false` when it was requested already
    /// (the finish is then answered with where the trip stands), 422 `empty-trip` without a fix.
    public static func mayFinish(_ s: TripState, caller: UUID) throws -> Bool {
        guard s.isOwned(by: caller) else { throw TripError.notFound }
        guard s.status == .recording else { return false }
        guard s.fixCount > 0 else { throw TripError.empty }
        return true
    }

    /// Whether a review may run: 404 for someone else's trip, 409 before finish and after a first review.
    public static func checkReview(_ s: TripState, caller: UUID) throws {
        guard s.isOwned(by: caller) else { throw TripError.notFound }
        guard s.status == .finished else { throw TripError.notFinished }
        guard s.review == nil else { throw TripError.alreadyReviewed }
    }
}
