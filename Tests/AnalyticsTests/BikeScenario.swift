@testable import Analytics
import Contracts
import Foundation

/// The bike side in March and April 2026: two riders' rides on `waypoint.trips`, the review queue and obstacles on
/// `waypoint.paths`, navigation sessions on `waypoint.navigation`, and (in `erasure`) rider R2's account erased on
/// `waypoint.auth`. The figures each test expects are worked out by hand next to the events (and in `BikeTruth`).
enum BikeScenario {
    static let r1 = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1", r2 = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb2"
    /// March and April 2026: Sunday 1 March (ISO week 9) to Thursday 30 April (week 18).
    static let range = AnalyticsRange(from: UTCDay(iso: "2026-03-01")!, to: UTCDay(iso: "2026-04-30")!)
    static let march = AnalyticsRange(from: UTCDay(iso: "2026-03-01")!, to: UTCDay(iso: "2026-03-31")!)

    static func date(_ text: String) -> Date { Scenario.date(text) }
    static func id(_ text: String) -> UUID { UUID(uuidString: text)! }
    static func trip(_ n: Int) -> UUID { UUID(uuidString: "cccccccc-cccc-4ccc-8ccc-\(String(format: "%012d", n))")! }
    static func draft(_ n: Int) -> UUID { UUID(uuidString: "dddddddd-dddd-4ddd-8ddd-\(String(format: "%012d", n))")! }
    static func session(_ n: Int) -> UUID { UUID(uuidString: "eeeeeeee-eeee-4eee-8eee-\(String(format: "%012d", n))")! }
    static func obstacle(_ n: Int) -> UUID { UUID(uuidString: "ffffffff-ffff-4fff-8fff-\(String(format: "%012d", n))")! }

    /// A finished ride: its start hour (`nil`: none kept), figures in metres and seconds, finish time.
    static func finished(_ log: inout EventLog, trip n: Int, rider: String?, started: String?, distance: Double, moving: Double,
                         gain: Double, finished: String) {
        let figures = TripFigures(distanceM: distance, elapsedS: moving + 60, movingS: moving, averageSpeedMps: moving > 0 ? distance / moving : 0,
                                  maxSpeedMps: 12, elevationGainM: gain, elevationLossM: gain)
        log.add(TripFinished(tripId: trip(n), riderId: rider.map(id), rideStartedHour: started.map(date), source: "recorded", figures: figures,
                             fixCount: 100, keptFixCount: 98, matchedLengthM: distance, candidateCount: 0, finishedAt: date(finished)),
                stream: "trip-\(trip(n).uuidString.lowercased())")
    }

    /// `waypoint.trips`. Rider R1 (week, month of the start):
    ///
    /// | trip | start (UTC) | metres | moving s | gain m | ISO week | month |
    /// |---|---|---|---|---|---|---|
    /// | 1 | Mon 2 Mar 07:00 | 10,000.4 | 1,800.25 | 100.5 | W10 | 03 |
    /// | 2 | Sun 8 Mar 22:00 | 20,000.1 | 3,600.5 | 200.25 | W10 | 03 |
    /// | 3 | Mon 9 Mar 00:00 | 5,000 | 900 | 50 | W11 | 03 |
    /// | 7 | none; finished Tue 10 Mar 12:00 | 1,000 | 300 | 5 | W11 | 03 |
    /// | 4 | Tue 31 Mar 23:00, finished 1 Apr 01:00 | 7,500 | 1,500 | 0 | W14 | 03 (the start counts) |
    /// | 5 | Wed 1 Apr 09:00 | 12,345.678 | 2,000.0004 (→ 2,000.000) | 33.3333 (→ 33.333) | W14 | 04 |
    /// | 6 | Tue 3 Mar 10:00 | 99,000 | 9,000 | 900 | deleted: counts nowhere |
    ///
    /// R2: trip 8, Tue 3 Mar 08:00, 3,000 m, 600 s, 10 m. A ride with no rider (published before the id was carried):
    /// counts nowhere. Obstacles riders confirmed: 2 Mar, 15 Mar, 31 Mar 23:59 (3 in March), 1 Apr.
    static func trips(_ log: inout EventLog) {
        finished(&log, trip: 1, rider: r1, started: "2026-03-02T07:00:00Z", distance: 10_000.4, moving: 1_800.25, gain: 100.5,
                 finished: "2026-03-02T08:00:00Z")
        log.add(ObstacleConfirmed(obstacleId: obstacle(101), osmNodes: [1, 2], latitude: 48.41, longitude: 15.6, kind: .pothole, severity: 0.5,
                                  detected: true, confirmedAt: date("2026-03-02T08:05:00Z")), stream: "trip-\(trip(1).uuidString.lowercased())")
        finished(&log, trip: 6, rider: r1, started: "2026-03-03T10:00:00Z", distance: 99_000, moving: 9_000, gain: 900,
                 finished: "2026-03-03T13:00:00Z")
        finished(&log, trip: 8, rider: r2, started: "2026-03-03T08:00:00Z", distance: 3_000, moving: 600, gain: 10,
                 finished: "2026-03-03T09:00:00Z")
        finished(&log, trip: 9, rider: nil, started: "2026-03-04T08:00:00Z", distance: 500, moving: 100, gain: 1,
                 finished: "2026-03-04T09:00:00Z")
        finished(&log, trip: 2, rider: r1, started: "2026-03-08T22:00:00Z", distance: 20_000.1, moving: 3_600.5, gain: 200.25,
                 finished: "2026-03-08T23:30:00Z")
        log.add(TripDeleted(tripId: trip(6), riderId: id(r1), reason: "rider", deletedAt: date("2026-03-09T07:00:00Z")),
                stream: "trip-\(trip(6).uuidString.lowercased())")
        finished(&log, trip: 3, rider: r1, started: "2026-03-09T00:00:00Z", distance: 5_000, moving: 900, gain: 50,
                 finished: "2026-03-09T01:00:00Z")
        finished(&log, trip: 7, rider: r1, started: nil, distance: 1_000, moving: 300, gain: 5, finished: "2026-03-10T12:00:00Z")
        log.add(ObstacleConfirmed(obstacleId: obstacle(102), osmNodes: [], latitude: 48.41, longitude: 15.6, kind: .bump, severity: 0.3,
                                  detected: false, confirmedAt: date("2026-03-15T10:00:00Z")), stream: "trip-\(trip(7).uuidString.lowercased())")
        // Shared on purpose, ignored by analytics.
        log.add(RideSubmittedAsPathDraft(draftId: draft(99), riderId: id(r1), pieces: [[1, 2]], geometry: [[[15.6, 48.41], [15.61, 48.41]]],
                                         lengthM: 700, condition: nil, submittedAt: date("2026-03-15T10:01:00Z")),
                stream: "trip-\(trip(7).uuidString.lowercased())")
        finished(&log, trip: 4, rider: r1, started: "2026-03-31T23:00:00Z", distance: 7_500, moving: 1_500, gain: 0,
                 finished: "2026-04-01T01:00:00Z")
        log.add(ObstacleConfirmed(obstacleId: obstacle(103), osmNodes: [3, 4], latitude: 48.41, longitude: 15.6, kind: .roughSurface, severity: 0.9,
                                  detected: true, confirmedAt: date("2026-03-31T23:59:00Z")), stream: "trip-\(trip(4).uuidString.lowercased())")
        finished(&log, trip: 5, rider: r1, started: "2026-04-01T09:00:00Z", distance: 12_345.678, moving: 2_000.0004, gain: 33.3333,
                 finished: "2026-04-01T10:00:00Z")
        log.add(ObstacleConfirmed(obstacleId: obstacle(104), osmNodes: [5, 6], latitude: 48.41, longitude: 15.6, kind: .pothole, severity: 0.4,
                                  detected: true, confirmedAt: date("2026-04-01T10:05:00Z")), stream: "trip-\(trip(5).uuidString.lowercased())")
    }

    static func opened(_ log: inout EventLog, _ n: Int, _ at: String) {
        log.add(PathReviewOpened(draftId: draft(n), openedAt: date(at)), stream: "path-draft-\(draft(n).uuidString.lowercased())")
    }

    static func closed(_ log: inout EventLog, _ n: Int, _ outcome: PathReviewOutcome, opened: String, closed: String) {
        log.add(PathReviewClosed(draftId: draft(n), outcome: outcome, openedAt: date(opened), closedAt: date(closed)),
                stream: "path-draft-\(draft(n).uuidString.lowercased())")
    }

    /// `waypoint.paths`. The queue (draft: published → closed, time to decision):
    ///
    /// | draft | review | outcome |
    /// |---|---|---|
    /// | 6 | 27 Feb 10:00 → 1 Mar 10:00 (172,800 s) | approved |
    /// | 1 | 2 Mar 10:00 → 2 Mar 12:00 (7,200 s) | approved |
    /// | 2 | 3 Mar 08:00 → 4 Mar 08:00 (86,400 s) | rejected |
    /// | 3 | 5 Mar 09:00 → 5 Mar 09:30 (1,800 s), then 6 Mar 09:00 → 6 Mar 10:00 (3,600 s) | sent back, then approved |
    /// | 4 | 10 Mar 10:00 → 11 Mar 10:00 | withdrawn (author erased) |
    /// | 5 | 20 Mar 10:00 → | still waiting |
    /// | 7 | 30 Mar 10:00 → 2 Apr 10:00 (259,200 s) | rejected |
    ///
    /// Obstacles on approved paths: O1 first seen 2 Mar, seen again 5 Mar and 6 Mar, resolved 20 Mar; O2 first seen 7 Mar.
    static func paths(_ log: inout EventLog) {
        opened(&log, 6, "2026-02-27T10:00:00Z")
        closed(&log, 6, .approved, opened: "2026-02-27T10:00:00Z", closed: "2026-03-01T10:00:00Z")
        log.add(PathApproved(pathId: draft(6), name: "Treppelweg", osmNodes: [1, 2, 3], geometry: [[15.6, 48.41], [15.61, 48.41], [15.62, 48.41]],
                             lengthM: 1_500, condition: "optimal", details: PathApprovedDetails(), approvedAt: date("2026-03-01T10:00:00Z")),
                stream: "path-draft-\(draft(6).uuidString.lowercased())")
        opened(&log, 1, "2026-03-02T10:00:00Z")
        closed(&log, 1, .approved, opened: "2026-03-02T10:00:00Z", closed: "2026-03-02T12:00:00Z")
        func sighting(_ obstacleNumber: Int, _ sightings: Int, _ at: String) {
            log.add(PathObstacleConfirmed(obstacleId: obstacle(obstacleNumber), pathId: draft(6), osmNodes: [1, 2], latitude: 48.41, longitude: 15.605,
                                          type: "pothole", confidence: 0.5 + Double(sightings) / 10, sightings: sightings, confirmedAt: date(at)),
                    stream: "path-draft-\(draft(6).uuidString.lowercased())")
        }
        sighting(1, 1, "2026-03-02T13:00:00Z")
        opened(&log, 2, "2026-03-03T08:00:00Z")
        closed(&log, 2, .rejected, opened: "2026-03-03T08:00:00Z", closed: "2026-03-04T08:00:00Z")
        opened(&log, 3, "2026-03-05T09:00:00Z")
        sighting(1, 2, "2026-03-05T09:10:00Z")
        closed(&log, 3, .sentBack, opened: "2026-03-05T09:00:00Z", closed: "2026-03-05T09:30:00Z")
        opened(&log, 3, "2026-03-06T09:00:00Z")
        closed(&log, 3, .approved, opened: "2026-03-06T09:00:00Z", closed: "2026-03-06T10:00:00Z")
        sighting(1, 3, "2026-03-06T11:00:00Z")
        sighting(2, 1, "2026-03-07T11:00:00Z")
        log.add(PathStatusChanged(pathId: draft(6), condition: "medium", source: .reports, changedAt: date("2026-03-08T11:00:00Z")),
                stream: "path-draft-\(draft(6).uuidString.lowercased())")
        opened(&log, 4, "2026-03-10T10:00:00Z")
        closed(&log, 4, .withdrawn, opened: "2026-03-10T10:00:00Z", closed: "2026-03-11T10:00:00Z")
        opened(&log, 5, "2026-03-20T10:00:00Z")
        log.add(PathObstacleResolved(obstacleId: obstacle(1), pathId: draft(6), resolution: .resolved, resolvedAt: date("2026-03-20T12:00:00Z")),
                stream: "path-draft-\(draft(6).uuidString.lowercased())")
        opened(&log, 7, "2026-03-30T10:00:00Z")
        closed(&log, 7, .rejected, opened: "2026-03-30T10:00:00Z", closed: "2026-04-02T10:00:00Z")
    }

    /// `waypoint.navigation`. Sessions: S1 route 2 Mar (rerouted twice, arrived), S2 tour 3 Mar (a stop reached, no
    /// arrival), S3 route 4 Mar (rerouted once, arrived), S4 route 5 Mar, S5 route 1 Apr (rerouted once).
    static func navigation(_ log: inout EventLog) {
        func started(_ n: Int, _ kind: NavigationSessionKind, _ at: String) {
            log.add(NavigationSessionStarted(sessionId: session(n), kind: kind, alternative: 0, plannedDistanceM: 2_000, plannedDurationS: 480,
                                             viaPoints: kind == .tour ? 3 : 0, startedAt: date(at)),
                    stream: "navigation-session-\(session(n).uuidString.lowercased())")
        }
        func rerouted(_ n: Int, _ count: Int, _ at: String) {
            log.add(NavigationRerouted(sessionId: session(n), reason: .offRoute, reroutes: count, distanceM: 1_000, durationS: 240, reroutedAt: date(at)),
                    stream: "navigation-session-\(session(n).uuidString.lowercased())")
        }
        func arrived(_ n: Int, _ reroutes: Int, _ at: String) {
            log.add(NavigationArrived(sessionId: session(n), distanceM: 2_100, durationS: 500, reroutes: reroutes, arrivedAt: date(at)),
                    stream: "navigation-session-\(session(n).uuidString.lowercased())")
        }
        func ended(_ n: Int, arrived: Bool, _ at: String) {
            log.add(NavigationSessionEnded(sessionId: session(n), arrived: arrived, distanceM: 2_100, durationS: 500, reroutes: 0, tripId: nil,
                                           endedAt: date(at)), stream: "navigation-session-\(session(n).uuidString.lowercased())")
        }
        started(1, .route, "2026-03-02T07:00:00Z")
        rerouted(1, 1, "2026-03-02T07:05:00Z")
        rerouted(1, 2, "2026-03-02T07:09:00Z")
        arrived(1, 2, "2026-03-02T07:20:00Z")
        ended(1, arrived: true, "2026-03-02T07:21:00Z")
        started(2, .tour, "2026-03-03T09:00:00Z")
        log.add(TourStopReached(sessionId: session(2), tourId: UUID(), stopId: UUID(), stopIndex: 0, userId: id(r2),
                                reachedAt: date("2026-03-03T09:10:00Z")), stream: "navigation-session-\(session(2).uuidString.lowercased())")
        ended(2, arrived: false, "2026-03-03T10:00:00Z")
        started(3, .route, "2026-03-04T07:00:00Z")
        rerouted(3, 1, "2026-03-04T07:03:00Z")
        arrived(3, 1, "2026-03-04T07:30:00Z")
        started(4, .route, "2026-03-05T07:00:00Z")
        started(5, .route, "2026-04-01T07:00:00Z")
        rerouted(5, 1, "2026-04-01T07:03:00Z")
    }

    /// Every event of the scenario, topic after topic.
    static var events: EventLog {
        var log = EventLog()
        trips(&log)
        paths(&log)
        navigation(&log)
        return log
    }

    /// Rider R2's account erased on `waypoint.auth` (20 Mar), and a ride of theirs finished before and published late
    /// (another topic, slower): it must not be kept.
    static func erasure(_ log: inout EventLog) {
        log.add(UserErased(userId: id(r2), erasedAt: date("2026-03-20T00:00:00Z")), stream: "user-\(r2)")
    }

    static func lateRideOfErased(_ log: inout EventLog) {
        finished(&log, trip: 10, rider: r2, started: "2026-03-19T08:00:00Z", distance: 4_000, moving: 800, gain: 20, finished: "2026-03-19T09:00:00Z")
    }
}
