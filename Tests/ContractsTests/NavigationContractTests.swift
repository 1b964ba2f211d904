import ContractTesting
import Contracts
import Foundation
import Testing

/// Producer side of `waypoint.navigation` (navigation, issue 21): every event keeps its pinned JSON shape
/// (`Tests/Golden/waypoint.navigation/`) and none carries a position, a destination or the rider.
@Suite("Contracts: waypoint.navigation")
struct NavigationContractTests {
    static let session = UUID(uuidString: "0a71ca7e-5e55-4000-8000-000000000021")!
    static let at = Date(timeIntervalSince1970: 1_790_200_000)
    static let events: [any IntegrationEvent] = [
        NavigationSessionStarted(sessionId: session, kind: .route, alternative: 1, plannedDistanceM: 3_674.2, plannedDurationS: 812,
                                 viaPoints: 0, startedAt: at),
        NavigationRerouted(sessionId: session, reason: .offRoute, reroutes: 1, distanceM: 2_950.4, durationS: 655, reroutedAt: at.addingTimeInterval(300)),
        NavigationArrived(sessionId: session, distanceM: 3_702.9, durationS: 845, reroutes: 1, arrivedAt: at.addingTimeInterval(845)),
        NavigationSessionEnded(sessionId: session, arrived: true, distanceM: 3_702.9, durationS: 900, reroutes: 1,
                               tripId: UUID(uuidString: "0b57ac1e-0000-4000-8000-000000000001")!, endedAt: at.addingTimeInterval(900)),
    ]

    @Test("the session events match their golden files, are on waypoint.navigation and carry no position or person")
    func golden() throws {
        for event in Self.events {
            try GoldenFile.verify(event)
            #expect(type(of: event).topic == .navigation)
            let json = String(decoding: try ContractJSON.encode(event), as: UTF8.self).lowercased()
            for word in ["lat", "lng", "latitude", "longitude", "rider", "user", "geometry", "track"] {
                #expect(!json.contains("\"\(word)"), "\(type(of: event).eventType) carries \(word)")
            }
        }
    }

    static let stopReached = TourStopReached(sessionId: session, tourId: UUID(uuidString: "70c0a1e5-0000-4000-8000-000000000005")!,
                                             stopId: UUID(uuidString: "570b0000-0000-4000-8000-000000000002")!, stopIndex: 1,
                                             userId: UUID(uuidString: "05e70000-0000-4000-8000-000000000007")!, reachedAt: at)

    @Test("TourStopReached matches its golden file: the traveller's own progress (userId, for tour-management), no position")
    func stopReachedGolden() throws {
        try GoldenFile.verify(Self.stopReached)
        #expect(TourStopReached.topic == .navigation)
        let json = String(decoding: try ContractJSON.encode(Self.stopReached), as: UTF8.self).lowercased()
        for word in ["lat", "lng", "latitude", "longitude", "geometry", "track"] { #expect(!json.contains("\"\(word)")) }
    }
}
