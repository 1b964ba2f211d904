@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceTesting
import Testing

/// Issue 22, point 2: a rider's weekly and monthly rides from `waypoint.trips`, and the platform's review, obstacle and
/// navigation figures from `waypoint.paths` and `waypoint.navigation` — through the live consumers' targets, on every
/// enabled backend. The ground truth is worked out by hand in `BikeScenario`.
@Suite("analytics: a rider's rides and the bike side's platform figures (issue 22)")
struct RiderAnalyticsTests {
    typealias B = BikeScenario

    static func queries(_ storage: ServiceStorage) -> AnalyticsQueries { AnalyticsQueries(database: AnalyticsDatabase(storage)) }

    static func period(_ label: String, _ from: String, _ to: String, trips: Int64 = 0, distance: Double = 0, moving: Double = 0,
                       gain: Double = 0) -> RiderPeriod {
        RiderPeriod(period: label, from: from, to: to, trips: trips, distanceM: distance, movingTimeS: moving, elevationGainM: gain)
    }

    /// What the API answers about both riders and the platform (for comparing databases).
    struct Answers: Equatable {
        var r1: RiderAnalytics
        var r2: RiderAnalytics
        var march: BikeFigures
        var april: BikeFigures
    }

    static func answers(_ storage: ServiceStorage) async throws -> Answers {
        let queries = Self.queries(storage)
        return Answers(r1: try await queries.rider(B.r1, range: B.range), r2: try await queries.rider(B.r2, range: B.range),
                       march: try await queries.bike(range: B.march),
                       april: try await queries.bike(range: AnalyticsRange(from: UTCDay(iso: "2026-04-01")!, to: UTCDay(iso: "2026-04-30")!)))
    }

    @Test("a rider's rides per ISO week and calendar month: counted at the ride's start, a deleted ride and a ride without rider nowhere",
          arguments: TestBackend.enabled)
    func riderFigures(backend: TestBackend) async throws {
        try await AnalyticsHarness.withStorage(backend) { storage in
            let log = B.events
            #expect(try await AnalyticsHarness.deliver(log.events, to: storage) == log.events.count)
            let r1 = try await Self.queries(storage).rider(B.r1, range: B.range)
            #expect((r1.riderId, r1.from, r1.to) == (B.r1, "2026-03-01", "2026-04-30"))
            // Trips 1, 2, 3, 4, 5, 7 (6 deleted; the rider-less one is nobody's).
            #expect(r1.totals == RideTotals(trips: 6, distanceM: 55_846.178, movingTimeS: 10_100.75, elevationGainM: 389.083))
            #expect(r1.weeks.map(\.period) == (9...18).map { "2026-W\(String(format: "%02d", $0))" }, "every ISO week overlapping the range")
            #expect(r1.weeks.first == Self.period("2026-W09", "2026-03-01", "2026-03-01"), "an edge week is cut to the range")
            #expect(r1.weeks[1] == Self.period("2026-W10", "2026-03-02", "2026-03-08", trips: 2, distance: 30_000.5, moving: 5_400.75, gain: 300.75),
                    "Monday 07:00 and Sunday 22:00 of one ISO week")
            #expect(r1.weeks[2] == Self.period("2026-W11", "2026-03-09", "2026-03-15", trips: 2, distance: 6_000, moving: 1_200, gain: 55),
                    "Monday 00:00 opens the next week; a ride without start hour counts at its finish")
            #expect(r1.weeks[5] == Self.period("2026-W14", "2026-03-30", "2026-04-05", trips: 2, distance: 19_845.678, moving: 3_500, gain: 33.333))
            #expect(r1.weeks.last == Self.period("2026-W18", "2026-04-27", "2026-04-30"))
            #expect(r1.weeks.map(\.trips).reduce(0, +) == 6 && [3, 4, 6, 7, 8].allSatisfy { r1.weeks[$0].trips == 0 })
            #expect(r1.months == [
                Self.period("2026-03", "2026-03-01", "2026-03-31", trips: 5, distance: 43_500.5, moving: 8_100.75, gain: 355.75),
                Self.period("2026-04", "2026-04-01", "2026-04-30", trips: 1, distance: 12_345.678, moving: 2_000, gain: 33.333),
            ], "trip 4 started 31 March 23:00 and finished in April: March")

            let r2 = try await Self.queries(storage).rider(B.r2, range: B.march)
            #expect(r2.totals == RideTotals(trips: 1, distanceM: 3_000, movingTimeS: 600, elevationGainM: 10) && r2.months.count == 1)
            let stranger = try await Self.queries(storage).rider(UUID().uuidString.lowercased(), range: B.range)
            #expect(stranger.totals == RideTotals() && stranger.weeks.count == 10 && stranger.months.count == 2, "dense, with zeros")
        }
    }

    @Test("the platform's bike figures: queue length, decisions by outcome, median time to decision, obstacles, sessions and reroute rate",
          arguments: TestBackend.enabled)
    func bikeFigures(backend: TestBackend) async throws {
        try await AnalyticsHarness.withStorage(backend) { storage in
            try await AnalyticsHarness.deliver(B.events.events, to: storage)
            let queries = Self.queries(storage)
            let march = try await queries.bike(range: B.march)
            // Waiting at the end of 31 March: drafts 5 and 7. Decisions in March: 6 (approved 1 Mar), 1 (approved),
            // 2 (rejected), 3 (sent back, then approved); 4 withdrawn. Waits 1,800 3,600 7,200 86,400 172,800 s.
            #expect(march.review == ReviewFigures(queueLength: 2, submitted: 7, decisions: 5, approved: 3, rejected: 1, sentBack: 1, withdrawn: 1,
                                                  approvalRate: 0.75, medianTimeToDecisionS: 7_200))
            #expect(march.obstacles == ObstacleFigures(confirmedByRiders: 3, newOnPaths: 2, confirmationsOnPaths: 4, resolvedOnPaths: 1))
            // S1–S4 in March: 3 reroutes (S1 twice, S3 once), 2 sessions rerouted, 2 arrivals.
            #expect(march.navigation == NavigationFigures(sessions: 4, tourSessions: 1, reroutes: 3, reroutedSessions: 2, reroutesPerSession: 0.75,
                                                          reroutedSessionRate: 0.5, arrivals: 2))

            // 2–6 March: an even number of decisions (1,800 3,600 7,200 86,400 s): the mean of the middle two; the queue empty.
            let early = try await queries.bike(range: AnalyticsRange(from: UTCDay(iso: "2026-03-02")!, to: UTCDay(iso: "2026-03-06")!))
            #expect(early.review == ReviewFigures(queueLength: 0, submitted: 4, decisions: 4, approved: 2, rejected: 1, sentBack: 1, withdrawn: 0,
                                                  approvalRate: 0.6667, medianTimeToDecisionS: 5_400))
            let april = try await queries.bike(range: AnalyticsRange(from: UTCDay(iso: "2026-04-01")!, to: UTCDay(iso: "2026-04-30")!))
            #expect(april.review == ReviewFigures(queueLength: 1, submitted: 0, decisions: 1, approved: 0, rejected: 1, sentBack: 0, withdrawn: 0,
                                                  approvalRate: 0, medianTimeToDecisionS: 259_200))
            #expect(april.navigation == NavigationFigures(sessions: 1, tourSessions: 0, reroutes: 1, reroutedSessions: 1, reroutesPerSession: 1,
                                                          reroutedSessionRate: 1, arrivals: 0))
            #expect(april.obstacles.confirmedByRiders == 1)
            let empty = try await queries.bike(range: AnalyticsRange(from: UTCDay(iso: "2025-01-01")!, to: UTCDay(iso: "2025-01-31")!))
            #expect(empty.review.medianTimeToDecisionS == nil && empty.review.approvalRate == nil && empty.navigation.reroutesPerSession == nil)
        }
    }

    @Test("double delivery counts once: every event again, in overlapping batches, and twice inside one batch give the same tables",
          arguments: TestBackend.enabled)
    func doubleDelivery(backend: TestBackend) async throws {
        var log = B.events
        B.erasure(&log)
        B.lateRideOfErased(&log)
        let events = log.events
        let once = try await AnalyticsHarness.withStorage(backend) { storage in
            #expect(try await AnalyticsHarness.deliver(events, to: storage) == events.count)
            let dump = try await AnalyticsHarness.dump(storage)
            let answers = try await Self.answers(storage)
            #expect(try await AnalyticsHarness.deliver(events, to: storage) == 0, "the dedupe records skip every redelivery")
            #expect(try await AnalyticsHarness.deliver(Array(events[5..<40]) + Array(events[20...]), to: storage) == 0)
            #expect(try await AnalyticsHarness.dump(storage) == dump)
            #expect(try await Self.answers(storage) == answers)
            #expect(answers.march.navigation.sessions == 4 && answers.r1.totals.trips == 6)
            return dump
        }
        try await AnalyticsHarness.withStorage(backend) { storage in
            let doubled = events.flatMap { [$0, $0] }
            let applied = try await AnalyticsHarness.deliver(doubled, to: storage)
            #expect(applied == events.count, "a re-send inside one batch")
            #expect(try await AnalyticsHarness.dump(storage) == once)
        }
    }

    @Test("erasure removes the rider from every analytics table, whatever the order the topics arrive in; other riders and platform counts stay",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        var log = B.events
        B.erasure(&log)
        B.lateRideOfErased(&log)
        let erasure = log.from("auth"), rest = log.events.filter { $0.source != "auth" }
        var generator = SeededGenerator(seed: 22)
        let orders: [[PublishedEvent]] = [rest + erasure, erasure + rest,
                                          AnalyticsProjectionTests.interleaveStreams(rest + erasure, using: &generator)]
        var dumps: [[String: [String]]] = []
        for order in orders {
            dumps.append(try await AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(order, to: storage)
                let dump = try await AnalyticsHarness.dump(storage)
                let found = dump.flatMap { table, rows in rows.filter { $0.contains(B.r2) }.map { "\(table): \($0)" } }
                #expect(found.isEmpty, "the erased rider is still in \(found)")
                #expect(dump[AnalyticsSchema.erased]?.count == 1, "one tombstone: a hash, never the id")
                let answers = try await Self.answers(storage)
                #expect(answers.r2.totals == RideTotals(), "the erased rider's rides (also one published after the erasure) are gone")
                #expect(answers.r1.totals.trips == 6, "other riders keep theirs")
                #expect(answers.march.navigation.sessions == 4 && answers.march.review.submitted == 7, "platform counts name nobody and stay")
                return dump
            })
        }
        for dump in dumps.dropFirst() { #expect(dump == dumps[0]) }

        // Erasing a rider whose rides were already counted: their rows go in the erasure's own batch.
        let expected = dumps[0]
        try await AnalyticsHarness.withStorage(backend) { storage in
            try await AnalyticsHarness.deliver(rest, to: storage)
            #expect(try await Self.queries(storage).rider(B.r2, range: B.range).totals.trips == 2)
            try await AnalyticsHarness.deliver(erasure, to: storage)
            #expect(try await AnalyticsHarness.dump(storage) == expected)
        }
    }

    @Test("SQLite and PostgreSQL hold the same bike tables and answers for the same events")
    func backendsAgree() async throws {
        guard TestBackend.enabled.count > 1 else { return }
        var log = B.events
        B.erasure(&log)
        let events = log.events
        var results: [([String: [String]], Answers)] = []
        for backend in TestBackend.enabled {
            results.append(try await AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(events, to: storage)
                return (try await AnalyticsHarness.dump(storage), try await Self.answers(storage))
            })
        }
        #expect(results[0].0 == results[1].0)
        #expect(results[0].1 == results[1].1)
    }

    @Test("the payload reader takes exactly what the contracts write; a ride without rider says nothing; bad values and versions stop the consumer")
    func payloads() throws {
        func fact<E: IntegrationEvent>(_ event: E) throws -> AnalyticsFact? {
            try AnalyticsEvents.fact(PublishedEvent(EventEnvelope(
                eventID: .v7(), streamID: "s", streamVersion: 1, position: 1, eventType: E.eventType, schemaVersion: E.schemaVersion,
                payload: try ContractJSON.encode(event), metadata: EventMetadata(), recordedAt: B.date("2026-03-01T00:00:00Z")),
                source: E.topic.producingService!))
        }
        let scenarioTypes = Set(B.events.events.map(\.eventType))
        #expect(Set(AnalyticsEvents.bikeReaders.keys).isSubset(of: scenarioTypes), "the bike scenario covers every bike type analytics applies")
        #expect(AnalyticsEvents.readers.count == AnalyticsEvents.tourReaders.count + AnalyticsEvents.bikeReaders.count, "no type read twice")
        let figures = TripFigures(distanceM: 1_234.5678, elapsedS: 700, movingS: 600.0006, averageSpeedMps: 2, maxSpeedMps: 5,
                                  elevationGainM: 1e-4, elevationLossM: 0)
        let at = B.date("2026-03-02T07:00:00Z"), later = B.date("2026-03-02T08:30:00Z")
        let micros = Int64(at.timeIntervalSince1970) * 1_000_000, laterMicros = Int64(later.timeIntervalSince1970) * 1_000_000
        let rider = UUID(uuidString: B.r1)!, trip = B.trip(1)
        #expect(try fact(TripFinished(tripId: trip, riderId: rider, rideStartedHour: at, source: "recorded", figures: figures, fixCount: 1,
                                      keptFixCount: 1, matchedLengthM: 0, candidateCount: 0, finishedAt: later))
                == .riderTrip(tripId: trip.uuidString.lowercased(), riderId: B.r1, at: micros, distanceMM: 1_234_568, movingMS: 600_001,
                              elevationGainMM: 0))
        #expect(try fact(TripFinished(tripId: trip, riderId: rider, rideStartedHour: nil, source: "imported", figures: figures, fixCount: 1,
                                      keptFixCount: 0, matchedLengthM: 0, candidateCount: 0, finishedAt: later))
                == .riderTrip(tripId: trip.uuidString.lowercased(), riderId: B.r1, at: laterMicros, distanceMM: 1_234_568, movingMS: 600_001,
                              elevationGainMM: 0), "no start hour: the finish")
        #expect(try fact(TripFinished(tripId: trip, rideStartedHour: at, source: "recorded", figures: figures, fixCount: 1, keptFixCount: 1,
                                      matchedLengthM: 0, candidateCount: 0, finishedAt: later)) == nil, "no rider: nobody's ride")
        #expect(try fact(TripDeleted(tripId: trip, riderId: rider, reason: "account-erased", deletedAt: later))
                == .tripDeleted(tripId: trip.uuidString.lowercased()))
        #expect(try fact(PathReviewClosed(draftId: B.draft(1), outcome: .sentBack, openedAt: at, closedAt: later))
                == .reviewClosed(draftId: B.draft(1).uuidString.lowercased(), outcome: "sent-back", openedAt: micros, closedAt: laterMicros))
        #expect(try fact(PathReviewOpened(draftId: B.draft(1), openedAt: at)) == .bike(at: micros, counters: [.reviewsOpened]))
        #expect(try fact(NavigationRerouted(sessionId: B.session(1), reason: .wrongWay, reroutes: 1, distanceM: 1, durationS: 1, reroutedAt: at))
                == .bike(at: micros, counters: [.reroutes, .reroutedSessions]))
        #expect(try fact(NavigationSessionStarted(sessionId: B.session(1), kind: .tour, alternative: 1, plannedDistanceM: 1, plannedDurationS: 1,
                                                  viaPoints: 2, startedAt: at)) == .bike(at: micros, counters: [.sessions, .tourSessions]))
        #expect(try fact(PathObstacleConfirmed(obstacleId: B.obstacle(1), pathId: B.draft(1), osmNodes: [], latitude: 0, longitude: 0, type: "glass",
                                               confidence: 0.9, sightings: 4, confirmedAt: at)) == .bike(at: micros, counters: [.pathObstacleConfirmations]))
        #expect(try fact(PathApproved(pathId: B.draft(1), name: "x", osmNodes: [], geometry: [], lengthM: 0, condition: "optimal",
                                      details: PathApprovedDetails(), approvedAt: at)) == nil, "not applied: ignored")
        #expect(try fact(NavigationSessionEnded(sessionId: B.session(1), arrived: true, distanceM: 1, durationS: 1, reroutes: 0, tripId: nil,
                                                endedAt: at)) == nil)

        // Values analytics cannot count stop the consumer (loudly, see the targets), as for every applied type.
        func payload(_ type: String, _ json: String, version: Int = 1) throws -> AnalyticsFact? {
            try AnalyticsEvents.fact(PublishedEvent(EventEnvelope(
                eventID: .v7(), streamID: "s", streamVersion: 1, position: 1, eventType: type, schemaVersion: version, payload: Data(json.utf8),
                metadata: EventMetadata(), recordedAt: at), source: "record-trip"))
        }
        let id = trip.uuidString
        let good = #"{"tripId":"\#(id)","riderId":"\#(B.r1)","rideStartedHour":null,"finishedAt":"2026-03-02T08:30:00Z","figures":{"distanceM":1e3,"movingS":60,"elevationGainM":0}}"#
        #expect(try payload("TripFinished", good) == .riderTrip(tripId: id.lowercased(), riderId: B.r1, at: laterMicros, distanceMM: 1_000_000,
                                                                  movingMS: 60_000, elevationGainMM: 0), "exponents, null start")
        let bad = [
            ("TripFinished", good.replacingOccurrences(of: "1e3", with: "-1"), 1),
            ("TripFinished", good.replacingOccurrences(of: #""movingS":60,"#, with: ""), 1),
            ("TripFinished", good, 2),
            ("PathReviewClosed", #"{"draftId":"\#(id)","outcome":"lost","openedAt":"2026-03-02T07:00:00Z","closedAt":"2026-03-02T08:00:00Z"}"#, 1),
            ("PathReviewClosed", #"{"draftId":"\#(id)","outcome":"approved","openedAt":"2026-03-02T09:00:00Z","closedAt":"2026-03-02T08:00:00Z"}"#, 1),
            ("NavigationRerouted", #"{"sessionId":"\#(id)","reroutes":0,"reroutedAt":"2026-03-02T08:00:00Z"}"#, 1),
        ]
        for (type, json, version) in bad {
            #expect(throws: EventDecodingError.self, "\(type) v\(version): \(json)") { try payload(type, json, version: version) }
        }
    }
}
