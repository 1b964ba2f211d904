import Contracts
import EventSourcing
import Foundation
import RecordTripAnalysis

/// The trip commands over the log: create, add a chunk, finish (analysis, weather), import, delete, and the weather
/// backfill. Each loads the trip stream, decides with ``TripAggregate`` and appends at the loaded version.
public struct TripCommands: Sendable {
    public typealias Repository = AggregateRepository<TripAggregate, AnyEventStore>

    let repository: Repository
    let seal: SubjectSeal
    let analyzer: TripAnalyzer
    let weather: (any WeatherProvider)?
    let weatherTimeout: Duration
    public let limits: TripLimits
    public let now: @Sendable () -> Date

    /// - Parameters:
    ///   - weather: where the weather at a ride's start comes from; `nil` records none.
    ///   - weatherTimeout: how long a finish waits for the provider before leaving the weather to the backfill worker.
    public init(store: AnyEventStore, keys: any PersonalDataKeyStore, analyzer: TripAnalyzer, weather: (any WeatherProvider)?,
                weatherTimeout: Duration = .seconds(2), limits: TripLimits = .standard, now: @escaping @Sendable () -> Date = Date.init) {
        // A snapshot keeps loads of a long trip to one read of its state, not a decode of every sealed chunk.
        repository = Repository(store: store, snapshotEvery: 16)
        seal = SubjectSeal(keys: keys, whenErased: { _ in TripError.riderErased })
        self.analyzer = analyzer
        self.weather = weather
        self.weatherTimeout = weatherTimeout
        self.limits = limits
        self.now = now
    }

    /// The trip as its stream says now.
    public func load(_ trip: UUID) async throws -> TripState {
        try await repository.load(TripAggregate.streamID(trip)).state
    }

    /// Starts a trip for `rider` (403 `account-erased` after their erasure).
    public func create(rider: UUID, navigationSessionId: UUID?, metadata: EventMetadata) async throws -> TripState {
        try await seal.requireSealable(rider)
        let id = UUID.v7()
        let started = TripStarted(tripId: id, riderId: rider, navigationSessionId: navigationSessionId, source: "recorded", startedAt: now())
        return try await repository.execute(.start(started), on: TripAggregate.streamID(id), metadata: metadata).state
    }

    /// Adds a chunk; `added` is false when the same chunk was received before (nothing new is recorded). The samples
    /// are sealed in ``TripSamplesFormat/binaryV1``; a chunk recorded as JSON before is still recognised when sent again.
    public func addChunk(trip: UUID, rider: UUID, sequence: Int, samples: TripSamples, metadata: EventMetadata) async throws
        -> (state: TripState, added: Bool) {
        let bytes = TripSamplesBinary.encode(samples)
        let times = samples.fixes.map(\.time).filter(\.isFinite)
        let chunk = TripSamplesReceived(
            tripId: trip, sequence: sequence, digest: Self.digest(bytes), fixCount: samples.fixes.count,
            accelerationCount: samples.acceleration.count, firstFixTime: times.min(), lastFixTime: times.max(),
            samples: SealedPersonalData(subject: "", sealed: ""), receivedAt: now(), format: .binaryV1)
        return try await mapConflicts {
            try await repository.execute(on: TripAggregate.streamID(trip), metadata: metadata, retries: 3) { loaded in
                if try Self.repeatsJSONChunk(samples, sequence: sequence, by: rider, loaded.state) { return ([], (loaded.state, false)) }
                guard try !TripAggregate.decideChunk(chunk, caller: rider, limits: limits, loaded.state).isEmpty else {
                    return ([], (loaded.state, false))
                }
                var sealed = chunk
                sealed.samples = try await seal.seal(bytes: bytes, for: rider)
                let events = try TripAggregate.decideChunk(sealed, caller: rider, limits: limits, loaded.state)
                return (events, (events.reduce(loaded.state, TripAggregate.apply), true))
            }
        }
    }

    /// Whether `samples` are a chunk the rider's trip recorded under `sequence` in the JSON format (its digest is over
    /// the canonical JSON): a repeat, not a conflict. JSON is encoded only when the digest differs.
    static func repeatsJSONChunk(_ samples: TripSamples, sequence: Int, by rider: UUID, _ state: TripState) throws -> Bool {
        guard state.isOwned(by: rider), let recorded = state.chunks[sequence],
              recorded != digest(TripSamplesBinary.encode(samples)) else { return false }
        return recorded == digest(try samples.canonicalJSON())
    }

    /// Records that the rider finished (no chunk is taken after it); finishing again changes nothing. The analysis
    /// follows off the request: ``analyse(trip:)``, run by the ``TripAnalysisQueue``.
    public func requestFinish(trip: UUID, rider: UUID, metadata: EventMetadata) async throws -> TripState {
        try await mapConflicts {
            try await repository.execute(.requestFinish(caller: rider, at: now()), on: TripAggregate.streamID(trip), metadata: metadata,
                                         retries: 3).state
        }
    }

    /// A GPX ride as a trip in one append (started, its samples as chunk 0, finish requested); the analysis follows as
    /// for a recorded trip.
    public func importRide(_ document: GPXDocument, rider: UUID, metadata: EventMetadata) async throws -> TripState {
        guard !document.fixes.isEmpty else { throw TripError.empty }
        let samples = TripSamples(fixes: document.fixes, acceleration: document.acceleration)
        let times = samples.fixes.map(\.time).filter(\.isFinite)
        try TripAggregate.checkLimits(fixes: samples.fixes.count, acceleration: samples.acceleration.count, first: times.min(),
                                      last: times.max(), limits: limits)
        let id = UUID.v7(), at = now()
        let bytes = TripSamplesBinary.encode(samples)
        let started = TripStarted(tripId: id, riderId: rider, navigationSessionId: nil, source: "imported", startedAt: at)
        let chunk = TripSamplesReceived(tripId: id, sequence: 0, digest: Self.digest(bytes), fixCount: samples.fixes.count,
                                        accelerationCount: samples.acceleration.count, firstFixTime: times.min(), lastFixTime: times.max(),
                                        samples: try await seal.seal(bytes: bytes, for: rider), receivedAt: at, format: .binaryV1)
        let events: [TripEvent] = [.started(started), .samples(chunk), .finishRequested(TripFinishRequested(tripId: id, requestedAt: at))]
        return try await repository.execute(on: TripAggregate.streamID(id), metadata: metadata) { _ in
            (events, events.reduce(TripAggregate.initialState, TripAggregate.apply))
        }
    }

    /// Deletes the trip (its rider only; 404 otherwise). `reason` is `rider` or `account-erased`.
    public func delete(trip: UUID, rider: UUID, reason: String = "rider", metadata: EventMetadata) async throws {
        try await mapConflicts {
            _ = try await repository.execute(.delete(caller: rider, reason: reason, at: now()), on: TripAggregate.streamID(trip),
                                             metadata: metadata, retries: 3)
        }
    }

    /// Asks the provider for the weather of a finished trip that has none; true when it was recorded.
    @discardableResult
    public func fillWeather(trip: UUID) async throws -> Bool {
        let state = try await load(trip)
        guard state.status == .finished, state.weather == nil, let sealed = state.analysis?.detail,
              let start = try await seal.open(TripAnalysisDetail.self, sealed)?.statistics.start,
              let observation = await observeWeather(at: start) else { return false }
        let recorded = TripWeatherRecorded(tripId: trip, weather: observation, recordedAt: now())
        let outcome = try await repository.execute(.recordWeather(recorded), on: TripAggregate.streamID(trip),
                                                   metadata: EventMetadata(actorID: "system:weather"), retries: 3)
        return !outcome.events.isEmpty
    }

    static func digest(_ data: Data) -> String {
        SHA256Digest.hex(data)
    }

    func mapConflicts<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw TripError.concurrentChange
        }
    }
}
