import Contracts
import EventSourcing
import Foundation
import RecordTripAnalysis

/// A trip's stream read once from its start: the folded state, its version, and the sealed chunks.
struct TripStreamRead: Sendable {
    var state = TripAggregate.initialState
    var version: Int64 = 0
    var chunks: [TripSamplesReceived] = []
}

extension TripCommands {
    /// Analyses a trip whose finish was requested and records the result (`TripAnalysed`, the published
    /// `TripFinished`, the weather when the provider answers in time); nothing when it is not `analysing` (done already,
    /// deleted, erased). The stream is read once: its state and its samples come from the same events. Safe to run twice
    /// at once: the second append conflicts, reads again and finds it done.
    @discardableResult
    public func analyse(trip: UUID) async throws -> TripState {
        let stream = TripAggregate.streamID(trip)
        var retried = 0
        while true {
            do {
                return try await analyseOnce(stream)
            } catch let error as EventStoreError where error.isConcurrentChange && retried < 2 {
                retried += 1
            }
        }
    }

    private func analyseOnce(_ stream: String) async throws -> TripState {
        let read = try await readTrip(stream)
        guard read.state.status == .analysing, let rider = read.state.riderId else { return read.state }
        guard let samples = try await open(read.chunks) else { return read.state }  // the rider was erased
        let events = try await finishEvents(read.state, samples: samples, rider: rider)
        let metadata = EventMetadata(actorID: "system:analysis")
        let newEvents = try events.map {
            try TripAggregate.payload(of: $0).newEvent(id: TripAggregate.eventID(of: $0) ?? .v7(), metadata: metadata)
        }
        _ = try await repository.store.append(newEvents, to: stream, expectedVersion: .exact(read.version))
        return events.reduce(read.state, TripAggregate.apply)
    }

    /// Every chunk of the trip opened and joined in sequence order; `nil` when the rider was erased.
    public func samples(of trip: UUID) async throws -> TripSamples? {
        try await open(readTrip(TripAggregate.streamID(trip)).chunks)
    }

    /// The whole stream folded, keeping the chunk events for their samples.
    func readTrip(_ stream: String) async throws -> TripStreamRead {
        var read = TripStreamRead()
        for envelope in try await repository.store.readStream(stream) {
            if let event = try TripAggregate.eventTypes.decode(envelope) {
                read.state = TripAggregate.apply(read.state, event)
                if case .samples(let chunk) = event { read.chunks.append(chunk) }
            }
            read.version = envelope.streamVersion
        }
        return read
    }

    /// The chunks opened (each in its recorded format) and joined in sequence order; `nil` when the rider was erased.
    func open(_ chunks: [TripSamplesReceived]) async throws -> TripSamples? {
        var joined = TripSamples(fixes: [], acceleration: [])
        for chunk in chunks.sorted(by: { $0.sequence < $1.sequence }) {
            guard let bytes = try await seal.openBytes(chunk.samples) else { return nil }
            let opened = try TripSamples.decode(bytes, format: chunk.samplesFormat)
            joined.fixes += opened.fixes
            joined.acceleration += opened.acceleration
        }
        return joined
    }

    /// Analysis, the published `TripFinished`, and the weather when the provider answers in time.
    func finishEvents(_ state: TripState, samples: TripSamples, rider: UUID) async throws -> [TripEvent] {
        guard let trip = state.tripId else { throw TripError.notFound }
        let detail = analyzer.analyse(samples)
        let at = now()
        let startedAt = detail.statistics.start.map { Date(timeIntervalSince1970: $0.time) }
        let analysed = TripAnalysed(
            tripId: trip, riderId: rider, figures: detail.figures, cleaning: detail.cleaning, rideStartedAt: startedAt,
            fixCount: samples.fixes.count, keptFixCount: detail.keptFixCount, matchedLengthM: detail.matchedLengthM,
            confidence: detail.confidence, candidateCount: detail.candidates.count, detail: try await seal.seal(detail, for: rider),
            analysedAt: at)
        let finished = TripFinished(
            tripId: trip, riderId: rider, rideStartedHour: startedAt.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 / 3600).rounded(.down) * 3600) },
            source: state.source, figures: detail.figures, fixCount: samples.fixes.count, keptFixCount: detail.keptFixCount,
            matchedLengthM: detail.matchedLengthM, candidateCount: detail.candidates.count, finishedAt: at)
        var events: [TripEvent] = [.analysed(analysed), .finished(finished)]
        if let start = detail.statistics.start, let observation = await observeWeather(at: start) {
            events.append(.weather(TripWeatherRecorded(tripId: trip, weather: observation, recordedAt: at)))
        }
        return events
    }

    /// The provider's weather at a fix, or `nil` when there is no provider, it fails, or it is slower than the timeout:
    /// a provider never fails the trip (DESIGN, "Outside providers"). The wait ends at the limit with ``TimeLimit``, as a
    /// finish's does, even when the provider is slow to notice its cancellation.
    func observeWeather(at fix: GPSFix) async -> WeatherObservation? {
        guard let weather else { return nil }
        let timeout = weatherTimeout
        return try? await TimeLimit.run(timeout, onTimeout: { WeatherError.timedOut(timeout) }) {
            try await weather.observation(latitude: fix.latitude, longitude: fix.longitude, time: fix.time)
        }
    }
}
