import ContractTesting
import Contracts
import Foundation
import Testing

/// Producer side of `waypoint.paths` (path-review, issue 20; the review queue's twins, issue 22): every event keeps its pinned JSON shape
/// (`Tests/Golden/waypoint.paths/`), and none names a person.
@Suite("Contracts: waypoint.paths")
struct PathContractTests {
    static let approved = PathApproved(
        pathId: UUID(uuidString: "5eee7000-4e5f-4a6b-8c7d-9e0f1a2b3c4d")!, name: "Treppelweg", osmNodes: [21_104_101, 21_104_102, 21_104_103],
        geometry: [[15.6, 48.4105], [15.6012, 48.4105], [15.6025, 48.4107]], lengthM: 186.5, condition: "medium",
        details: PathApprovedDetails(segregatedFromCars: true, surface: "asphalt"), approvedAt: Date(timeIntervalSince1970: 1_790_003_600))

    @Test("PathApproved matches its golden file, is on waypoint.paths and names no author or moderator")
    func golden() throws {
        try GoldenFile.verify(Self.approved)
        #expect(PathApproved.topic == .paths)
        let json = String(decoding: try ContractJSON.encode(Self.approved), as: UTF8.self).lowercased()
        #expect(!json.contains("author") && !json.contains("moderator") && !json.contains("user"))
    }

    static let pathId = UUID(uuidString: "5eee7000-4e5f-4a6b-8c7d-9e0f1a2b3c4d")!
    static let obstacleId = UUID(uuidString: "0b57ac1e-7a11-4c3d-9e8f-102938475601")!
    static let at = Date(timeIntervalSince1970: 1_790_090_000)
    static let upkeep: [any IntegrationEvent] = [
        PathStatusChanged(pathId: pathId, condition: "requires-maintenance", source: .reports, changedAt: at),
        PathObstacleConfirmed(obstacleId: obstacleId, pathId: pathId, osmNodes: [21_104_101, 21_104_102], latitude: 48.4105, longitude: 15.6006,
                              type: "pothole", confidence: 0.75, sightings: 3, confirmedAt: at),
        PathObstacleResolved(obstacleId: obstacleId, pathId: pathId, resolution: .faded, resolvedAt: at),
        PathRetired(pathId: pathId, retiredAt: at),
        StreetCompatibilityChanged(streetId: 4_281_337, osmNodes: [[21_104_201, 21_104_202, 21_104_203]], compatible: false, changedAt: at),
        // The review queue's twins (issue 22, for analytics): a draft id and times, nobody's id or words.
        PathReviewOpened(draftId: pathId, openedAt: Date(timeIntervalSince1970: 1_790_003_000)),
        PathReviewClosed(draftId: pathId, outcome: .sentBack, openedAt: Date(timeIntervalSince1970: 1_790_003_000), closedAt: at),
    ]

    @Test("the upkeep and review-queue events match their golden files, are on waypoint.paths and name nobody")
    func upkeepGolden() throws {
        for event in Self.upkeep {
            try GoldenFile.verify(event)
            #expect(type(of: event).topic == .paths)
            let json = String(decoding: try ContractJSON.encode(event), as: UTF8.self).lowercased()
            #expect(!json.contains("author") && !json.contains("moderator") && !json.contains("user") && !json.contains("reporter"))
        }
    }
}
