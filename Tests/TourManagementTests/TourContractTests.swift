import Contracts
import ContractTesting
import Foundation
import Testing

/// Producer side of `waypoint.tours` (authoring): every event keeps its pinned JSON shape (`Tests/Golden/waypoint.tours/`).
@Suite("tour-management: published contracts on waypoint.tours")
struct TourContractTests {
    static let tour = UUID(uuidString: "3f7b8a10-5c2e-4d91-9a6b-1e2f3a4b5c01")!
    static let guide = UUID(uuidString: "0b8f3a52-4a7e-4c55-9d55-6f1f2f6b1a01")!
    static let stop1 = UUID(uuidString: "8a1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c02")!
    static let stop2 = UUID(uuidString: "8a1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c03")!
    static let at = Date(timeIntervalSince1970: 1_795_341_600)
    static let details = TourDetails(
        title: "Wachau wine and monasteries", description: "From Krems along the Danube to Dürnstein.", destinationId: 2_773_300,
        themes: [.history, .food, .hiddenGems], languages: ["de", "en"], price: Money(amountMinor: 1_299, currency: .eur),
        estimatedMinutes: 150, difficulty: .moderate, mode: .bike)
    static let media = StopMedia(sha256: String(repeating: "ab", count: 32), kind: "audio", contentType: "audio/mpeg", size: 1_234_567)
    static let first = TourStop(stopId: stop1, name: "Steiner Tor", description: "The old town gate.",
                                location: LatLng(lat: 48.4098, lng: 15.5976), triggerRadiusMetres: 30, media: [media])
    static let second = TourStop(stopId: stop2, name: "Dürnstein", description: "Where Richard the Lionheart was held.",
                                 location: LatLng(lat: 48.3953, lng: 15.5204), triggerRadiusMetres: 60, media: [])

    static let examples: [any IntegrationEvent] = [
        TourDrafted(tourId: tour, guideId: guide, details: details, draftedAt: at),
        TourDetailsChanged(tourId: tour, details: details, changedAt: at),
        StopAdded(tourId: tour, stop: first, position: 0, addedAt: at),
        StopChanged(tourId: tour, stop: second, changedAt: at),
        StopsReordered(tourId: tour, stopIds: [stop2, stop1], reorderedAt: at),
        StopRemoved(tourId: tour, stopId: stop2, removedAt: at),
        MediaAttached(tourId: tour, stopId: stop1, media: media, attachedAt: at),
        TourPublished(tourId: tour, guideId: guide, revision: 2, details: details, stops: [first, second], lengthMetres: 5_874,
                      publishedAt: at),
        TourUnpublished(tourId: tour, unpublishedAt: at),
        TourDraftExpired(tourId: tour, lastChangedAt: at.addingTimeInterval(-31 * 86_400), expiredAt: at),
        TourDeleted(tourId: tour, deletedAt: at),
    ]

    @Test("every authoring event matches its golden file", arguments: 0..<examples.count)
    func golden(index: Int) throws {
        try Self.verify(Self.examples[index])
    }

    private static func verify<Event: IntegrationEvent>(_ event: Event) throws {
        try GoldenFile.verify(event)
        #expect(Event.topic == .tours)
    }

    @Test("themes are the documented list")
    func themes() {
        #expect(TourTheme.allCases.map(\.rawValue) == [
            "history", "food", "art", "architecture", "nature", "nightlife", "shopping", "culture", "religion", "family",
            "photography", "hidden-gems",
        ])
    }
}
