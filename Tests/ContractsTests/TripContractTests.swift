import ContractTesting
import Contracts
import Foundation
import Testing

/// Producer side of `waypoint.trips` (record-trip, issue 19; the rider's id on a ride's figures and `TripDeleted`, issue
/// 22): every event keeps its pinned JSON shape (`Tests/Golden/waypoint.trips/`), none carries a track, and an obstacle
/// carries no rider id.
@Suite("Contracts: waypoint.trips")
struct TripContractTests {
    static let trip = UUID(uuidString: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")!
    static let rider = UUID(uuidString: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e")!
    static let at = Date(timeIntervalSince1970: 1_790_003_600)
    static let figures = TripFigures(distanceM: 12_345.5, elapsedS: 3_600, movingS: 3_300, averageSpeedMps: 3.74, maxSpeedMps: 9.5,
                                     elevationGainM: 120.5, elevationLossM: 118)

    static let examples: [any IntegrationEvent] = [
        TripFinished(tripId: trip, riderId: rider, rideStartedHour: Date(timeIntervalSince1970: 1_790_000_000 - 800), source: "recorded",
                     figures: figures, fixCount: 3_600, keptFixCount: 3_571, matchedLengthM: 12_100, candidateCount: 3, finishedAt: at),
        ObstacleConfirmed(obstacleId: UUID(uuidString: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c50")!, osmNodes: [21_104_101, 21_104_102],
                          latitude: 48.4105, longitude: 15.6012, kind: .pothole, severity: 0.75, detected: true, confirmedAt: at),
        RideSubmittedAsPathDraft(draftId: UUID(uuidString: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c51")!, riderId: rider,
                                 pieces: [[21_104_101, 21_104_102, 21_104_103]],
                                 geometry: [[[15.6, 48.4105], [15.6012, 48.4105], [15.6025, 48.4107]]], lengthM: 186.5,
                                 condition: "medium", submittedAt: at),
        TripDeleted(tripId: trip, riderId: rider, reason: "rider", deletedAt: at),
    ]

    @Test("every trips event matches its golden file", arguments: 0..<examples.count)
    func golden(index: Int) throws {
        try Self.verify(Self.examples[index])
    }

    @Test("ObstacleConfirmed carries no rider id; TripFinished carries its rider, and one published before it did still reads")
    func riders() throws {
        let obstacle = String(decoding: try ContractJSON.encode(Self.examples[1]), as: UTF8.self)
        #expect(!obstacle.contains(Self.rider.uuidString) && !obstacle.lowercased().contains("rider"))
        let finished = try ContractJSON.encode(Self.examples[0])
        #expect(String(decoding: finished, as: UTF8.self).contains(Self.rider.uuidString))
        var old = try #require(try JSONSerialization.jsonObject(with: finished) as? [String: Any])
        old["riderId"] = nil
        let decoded = try ContractJSON.decode(TripFinished.self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(decoded.riderId == nil && decoded.tripId == Self.trip)
    }

    private static func verify<Event: IntegrationEvent>(_ event: Event) throws {
        try GoldenFile.verify(event)
        #expect(Event.topic == .trips)
    }
}
