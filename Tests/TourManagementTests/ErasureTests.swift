import Contracts
import Foundation
import HummingbirdTesting
import Messaging
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: UserErased removes what the person wrote")
struct ErasureTests {
    typealias Authoring = TourAuthoringRoutesTests

    @Test("after UserErased on waypoint.auth the traveller's review no longer shows or counts, without any request")
    func erasedReviewer() async throws {
        try await GuideProfilesTests.withAuthStub { auth in
            try await Authoring.withServiceAndStorage(authURL: auth.url) { client, storage in
                let (id, _) = try await ProgressRoutesTests.publishedTour(client)
                let travellerId = UUID.v4()
                let traveller = try await TokenForge.token(travellerId.uuidString.lowercased(), role: .traveller)
                try await ProgressRoutesTests.acquire(storage, tour: id, user: travellerId.uuidString.lowercased())
                _ = try await ProgressRoutesTests.entitled(client, id, token: traveller)
                let posted = try await Authoring.send(client, .post, "/v1/tours/\(id)/reviews", #"{"rating":5,"text":"Wonderful walk."}"#,
                                                      token: traveller)
                #expect(posted.status == 201)
                func reviews() async throws -> [[String: Any]] {
                    try await Authoring.send(client, .get, "/v1/tours/\(id)/reviews", token: traveller).json["reviews"] as? [[String: Any]] ?? []
                }
                try await eventually(timeout: .seconds(30), interval: .milliseconds(50)) { try await reviews().isEmpty == false }
                #expect(try await reviews().first?["text"] as? String == "Wonderful walk.")

                try await auth.append(UserErased(userId: travellerId, erasedAt: Date()))
                var remaining = 1
                try await eventually(timeout: .seconds(60), interval: .milliseconds(50)) {
                    remaining = try await reviews().count
                    return remaining == 0
                }
                #expect(remaining == 0, "the erased traveller's review is hidden")
                var count = -1
                try await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
                    let summary = try await Authoring.send(client, .get, "/v1/tours/\(id)", token: traveller).json["tour"] as? [String: Any]
                    count = (summary?["rating"] as? [String: Any])?["count"] as? Int ?? -1
                    return count == 0
                }
                #expect(count == 0, "and no longer counts in discovery")
            }
        }
    }
}
