import Contracts
import EventSourcing
import Foundation
@testable import RecordTrip
import RecordTripAnalysis
import ServiceKit
import Testing

@Suite("record-trip: the Trip aggregate's rules (pure decide/apply)")
struct TripAggregateTests {
    static let rider = UUID.v4(), other = UUID.v4(), trip = UUID.v4()
    static let sealed = SealedPersonalData(subject: "x", sealed: "eA==")

    static func chunk(_ sequence: Int, digest: String = "d", fixes: Int = 10, acceleration: Int = 100, first: Double? = 1_000,
                      last: Double? = 1_009) -> TripSamplesReceived {
        TripSamplesReceived(tripId: trip, sequence: sequence, digest: digest, fixCount: fixes, accelerationCount: acceleration,
                            firstFixTime: first, lastFixTime: last, samples: sealed, receivedAt: Date())
    }

    static var recording: TripState {
        TripAggregate.apply(TripAggregate.initialState, .started(TripStarted(tripId: trip, riderId: rider, navigationSessionId: nil,
                                                                             source: "recorded", startedAt: Date())))
    }

    static func fold(_ state: TripState, _ events: [TripEvent]) -> TripState { events.reduce(state, TripAggregate.apply) }

    static func problemCode(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as TripError {
            return error.problem.code
        } catch {
            return "\(error)"
        }
    }

    @Test("a chunk is recorded once: the same sequence and digest again decides nothing, another digest is 409 chunk-conflict")
    func idempotentChunks() throws {
        let limits = TripLimits()
        let first = try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.rider, limits: limits), Self.recording)
        #expect(first.count == 1)
        let state = Self.fold(Self.recording, first)
        #expect(state.chunks == [0: "d"] && state.fixCount == 10 && state.accelerationCount == 100)
        #expect(try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.rider, limits: limits), state).isEmpty)
        #expect(Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(0, digest: "e"), caller: Self.rider, limits: limits), state) }
            == "chunk-conflict")
    }

    @Test("chunks arrive in any order; counts add up and the time span is the union")
    func outOfOrder() throws {
        let limits = TripLimits()
        var state = Self.recording
        for (sequence, first) in [(2, 3_000.0), (0, 1_000.0), (1, 2_000.0)] {
            state = Self.fold(state, try TripAggregate.decide(.addChunk(Self.chunk(sequence, digest: "\(sequence)", first: first, last: first + 9),
                                                                        caller: Self.rider, limits: limits), state))
        }
        #expect(state.chunks.keys.sorted() == [0, 1, 2])
        #expect(state.fixCount == 30 && state.firstFixTime == 1_000 && state.lastFixTime == 3_009)
    }

    @Test("someone else's trip, or none, is 404 unknown-trip (never 403: a trip's existence is private)")
    func someoneElses() {
        let limits = TripLimits()
        #expect(Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.other, limits: limits), Self.recording) }
            == "unknown-trip")
        #expect(Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.rider, limits: limits), TripState()) }
            == "unknown-trip")
        #expect(Self.problemCode { _ = try TripAggregate.mayFinish(Self.recording, caller: Self.other) } == "unknown-trip")
        #expect(Self.problemCode { _ = try TripAggregate.decide(.delete(caller: Self.other, reason: "rider", at: Date()), Self.recording) }
            == "unknown-trip")
    }

    @Test("limits: 413 trip-too-large past 200,000 fixes or 5,000,000 accelerometer samples, 422 trip-too-long past 24 h")
    func limits() throws {
        let limits = TripLimits()
        let full = Self.fold(Self.recording, [.samples(Self.chunk(0, fixes: 199_999, acceleration: 4_999_999))])
        #expect(try TripAggregate.decide(.addChunk(Self.chunk(1, fixes: 1, acceleration: 1), caller: Self.rider, limits: limits), full).count == 1)
        let tooMany = Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(1, fixes: 2, acceleration: 0), caller: Self.rider,
                                                                                limits: limits), full) }
        #expect(tooMany == "trip-too-large")
        #expect(TripError.tooManySamples("x").problem.status == .contentTooLarge)
        let tooManySamples = Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(1, fixes: 0, acceleration: 2),
                                                                                       caller: Self.rider, limits: limits), full) }
        #expect(tooManySamples == "trip-too-large")
        let long = Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(1, first: 1_000, last: 1_000 + 86_401),
                                                                             caller: Self.rider, limits: limits), Self.recording) }
        #expect(long == "trip-too-long")
        #expect(TripError.tooLong(seconds: 1, limit: 0).problem.status == .unprocessableContent)
        // Exactly 24 h is allowed.
        #expect(try TripAggregate.decide(.addChunk(Self.chunk(1, first: 1_000, last: 1_000 + 86_400), caller: Self.rider, limits: limits),
                                         Self.recording).count == 1)
    }

    @Test("finish: an empty trip is 422 empty-trip; a finished trip takes no chunk (409 trip-finished) and finishes again as a no-op")
    func finish() throws {
        #expect(Self.problemCode { _ = try TripAggregate.mayFinish(Self.recording, caller: Self.rider) } == "empty-trip")
        let withFixes = Self.fold(Self.recording, [.samples(Self.chunk(0))])
        #expect(try TripAggregate.mayFinish(withFixes, caller: Self.rider))
        let finished = Self.fold(withFixes, [.finished(TripFinished(
            tripId: Self.trip, rideStartedHour: nil, source: "recorded",
            figures: TripFigures(distanceM: 0, elapsedS: 0, movingS: 0, averageSpeedMps: 0, maxSpeedMps: 0, elevationGainM: 0, elevationLossM: 0),
            fixCount: 10, keptFixCount: 10, matchedLengthM: 0, candidateCount: 0, finishedAt: Date()))])
        #expect(finished.status == .finished)
        #expect(try !TripAggregate.mayFinish(finished, caller: Self.rider))
        #expect(Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(1), caller: Self.rider, limits: TripLimits()), finished) }
            == "trip-finished")
        // The same chunk again after finish is still the same success: a retried upload never fails.
        #expect(try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.rider, limits: TripLimits()), finished).isEmpty)
        #expect(Self.problemCode { try TripAggregate.checkReview(withFixes, caller: Self.rider) } == "trip-not-finished")
        try TripAggregate.checkReview(finished, caller: Self.rider)
    }

    @Test("delete is final: the trip is then unknown to every command")
    func delete() throws {
        let events = try TripAggregate.decide(.delete(caller: Self.rider, reason: "rider", at: Date()), Self.recording)
        let deleted = Self.fold(Self.recording, events)
        #expect(deleted.status == .deleted)
        #expect(Self.problemCode { _ = try TripAggregate.decide(.addChunk(Self.chunk(0), caller: Self.rider, limits: TripLimits()), deleted) }
            == "unknown-trip")
        #expect(Self.problemCode { _ = try TripAggregate.decide(.delete(caller: Self.rider, reason: "rider", at: Date()), deleted) }
            == "unknown-trip")
    }

    @Test("weather is recorded once, only for a finished trip")
    func weather() throws {
        let recorded = TripWeatherRecorded(tripId: Self.trip, weather: StubWeather.observation, recordedAt: Date())
        #expect(try TripAggregate.decide(.recordWeather(recorded), Self.recording).isEmpty)
        let finished = Self.fold(Self.recording, [.samples(Self.chunk(0)), .finished(TripFinished(
            tripId: Self.trip, rideStartedHour: nil, source: "recorded",
            figures: TripFigures(distanceM: 0, elapsedS: 0, movingS: 0, averageSpeedMps: 0, maxSpeedMps: 0, elevationGainM: 0, elevationLossM: 0),
            fixCount: 10, keptFixCount: 10, matchedLengthM: 0, candidateCount: 0, finishedAt: Date()))])
        let events = try TripAggregate.decide(.recordWeather(recorded), finished)
        #expect(events.count == 1)
        #expect(try TripAggregate.decide(.recordWeather(recorded), Self.fold(finished, events)).isEmpty)
    }
}

@Suite("record-trip: the analysis chain's answer is always encodable")
struct TripAnalyzerTests {
    @Test("non-finite figures become 0 and a non-finite bounding box is dropped (JSON carries no NaN)")
    func finiteFigures() throws {
        let statistics = TripStatistics(distanceM: .nan, elapsedS: .infinity, movingS: 3, averageSpeedMps: -.infinity, maxSpeedMps: 2,
                                        elevationGainM: .nan, elevationLossM: 1, boundingBox: [0, .nan, 1, 1])
        let finite = TripAnalyzer.finite(statistics)
        #expect(finite.distanceM == 0 && finite.elapsedS == 0 && finite.movingS == 3 && finite.averageSpeedMps == 0)
        #expect(finite.elevationGainM == 0 && finite.elevationLossM == 1 && finite.boundingBox == nil)
        _ = try JSONEncoder().encode(finite)
    }

    @Test("without a matcher or samples the chain still answers: no route, no candidate")
    func emptyChain() {
        let detail = TripAnalyzer(matcher: nil).analyse(TripSamples(fixes: [], acceleration: []))
        #expect(detail.route.isEmpty && detail.candidates.isEmpty && detail.keptFixCount == 0 && detail.confidence == 0)
    }
}
