import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

/// Tour progress from navigation: `TourStopReached` on navigation's feed (a stand-in here) completes the traveller's
/// stops through the progress aggregate — the same progress `GET /v1/tours/{id}/progress` shows — once each.
@Suite("tour-management: progress from navigation's tour sessions")
struct NavigationArrivalsTests {
    typealias Authoring = TourAuthoringRoutesTests

    @Test("stops reached on a tour session complete the traveller's progress; a redelivery and an unknown tour change nothing")
    func arrivalsComplete() async throws {
        var quiet = Logger(label: "navigation-feed")
        quiet.logLevel = .critical
        try await ProducerFeedStub.with("navigation", internalToken: GuideProfilesTests.token, logger: quiet) { navigation in
            try await Authoring.withServiceAndStorage(endpoints: ["navigation": navigation.url]) { client, storage in
                let (id, stops) = try await ProgressRoutesTests.publishedTour(client)
                let travellerId = UUID.v4().uuidString.lowercased()
                let traveller = try await TokenForge.token(travellerId, role: .traveller)
                try await ProgressRoutesTests.acquire(storage, tour: id, user: travellerId)
                let session = UUID()
                for (index, stop) in stops.prefix(2).enumerated() {
                    let reached = TourStopReached(sessionId: session, tourId: UUID(uuidString: id)!, stopId: UUID(uuidString: stop)!, stopIndex: index,
                                                  userId: UUID(uuidString: travellerId)!, reachedAt: Date().addingTimeInterval(Double(index) - 60))
                    try await navigation.publish(reached, on: "navigation-session-\(session)")
                    try await navigation.publish(reached, on: "navigation-session-\(session)")  // a relay re-send
                }
                try await navigation.publish(TourStopReached(sessionId: session, tourId: UUID(), stopId: UUID(), stopIndex: 0,
                                                             userId: UUID(uuidString: travellerId)!, reachedAt: Date()), on: "navigation-session-\(session)")
                let progress = try await client.waitForJSON("/v1/tours/\(id)/progress", token: traveller, timeout: .seconds(30), "two stops completed") {
                    $0["completedStops"] as? Int == 2
                }
                #expect(progress["nextStopId"] as? String == stops[2])
                let completions = try await storage.store.readAll(after: 0, limit: 10_000).filter { $0.eventType == StopCompleted.eventType }
                #expect(completions.count == 2, "each stop completed once")
            }
        }
    }
}
