import ContractTesting
import Contracts
import Foundation
import Testing

/// Producer side of `waypoint.paths` (path-review, issue 20): every event keeps its pinned JSON shape
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
}
