import Foundation
import HummingbirdTesting
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

@Suite("path-review: publish and review over HTTP")
struct ReviewRoutesTests {
    static func publish(_ client: any TestClientProtocol, _ server: PathReviewServer, token: String, name: String) async throws -> String {
        let created = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server, name: name), token: token)
        let id = try #require(created.json["id"] as? String, "\(name): \(created.json)")
        let published = try await client.sendJSON(.post, "/v1/paths/drafts/\(id)/publish", token: token)
        #expect(published.status == 200 && published.json["stage"] as? String == "in-review")
        return id
    }

    @Test("the queue is oldest first and filtered by area; one moderator holds an item, the other gets 409; a decided item leaves the queue and cannot be decided again; rebuild = live",
          arguments: TestBackend.enabled)
    func queue(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let author = try await TokenForge.token(UUID())
            let (first, second) = (try await TokenForge.token(UUID(), .moderator), try await TokenForge.token(UUID(), .moderator))
            let older = try await Self.publish(client, server, token: author, name: "older")
            let newer = try await Self.publish(client, server, token: author, name: "newer")
            #expect(try await client.sendJSON(.put, "/v1/paths/drafts/\(older)", json: try PathDraftRoutesTests.body(server), token: author,
                                              headers: [.ifMatch: "3"]).status == 409, "in review: not editable (v3: created, published, its PathReviewOpened)")
            try await server.reviewQueue.catchUp()
            let queue = try await client.sendJSON(.get, "/v1/paths/review-queue", token: first)
            #expect(queue.status == 200)
            #expect((queue.json["items"] as? [[String: Any]])?.compactMap { $0["draftId"] as? String } == [older, newer])
            let elsewhere = try await client.sendJSON(.get, "/v1/paths/review-queue?bbox=7.40,43.72,7.44,43.75", token: first)
            #expect((elsewhere.json["items"] as? [Any])?.isEmpty == true, "nothing in Monaco")
            #expect(try await client.sendJSON(.get, "/v1/paths/review-queue?bbox=15.7,48.4,15.6,48.5", token: first).status == 422)
            #expect(try await client.sendJSON(.get, "/v1/paths/review-queue", token: author).status == 403, "cyclists do not see the queue")

            #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/decision", json: #"{"outcome":"approve"}"#, token: first)
                .json["code"] as? String == "claim-required")
            #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/claim", token: first).status == 200)
            let taken = try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/claim", token: second)
            #expect(taken.status == 409 && taken.json["code"] as? String == "claimed-by-another")
            let noReason = try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/decision", json: #"{"outcome":"reject"}"#, token: first)
            #expect(noReason.status == 422 && PathReviewApp.fields(noReason.json) == ["note"], "\(noReason.status) \(noReason.json)")
            let approved = try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/decision", json: #"{"outcome":"approve"}"#, token: first)
            #expect(approved.status == 200 && approved.json["stage"] as? String == "approved", "\(approved.status) \(approved.json)")
            let feed = try await client.sendJSON(.get, "/v1/internal/events?after=0&limit=1000", token: "internal-token-for-path-review-tests")
            // The feed also carries the authors' notifications (waypoint.notifications); the path's own events are these.
            let published = (feed.json["events"] as? [[String: Any]] ?? []).compactMap { $0["eventType"] as? String }.filter { $0 != "UserNotified" }
            #expect(feed.status == 200 && Array(published.prefix(4)) == ["PathReviewOpened", "PathReviewOpened", "PathReviewClosed", "PathApproved"]
                        && Set(published.dropFirst(4)).isSubset(of: ["PathObstacleConfirmed"]),
                    "only the queue's anonymous twins, the approval and its obstacles leave the service: \(published)")
            let closed = try #require((feed.json["events"] as? [[String: Any]])?.first { $0["eventType"] as? String == "PathReviewClosed" })
            // The feed carries payloads as base64 of their JSON.
            let payload = try #require((closed["payload"] as? String).flatMap { Data(base64Encoded: $0) }.flatMap {
                try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
            #expect(Set(payload.keys) == ["draftId", "outcome", "openedAt", "closedAt"] && payload["outcome"] as? String == "approved",
                    "no moderator, no note: \(payload)")
            let again = try await client.sendJSON(.post, "/v1/paths/review-queue/\(older)/decision",
                                                  json: #"{"outcome":"reject","note":"changed my mind"}"#, token: first)
            #expect(again.status == 409 && again.json["code"] as? String == "already-decided")

            #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(newer)/claim", token: second).status == 200)
            let back = try await client.sendJSON(.post, "/v1/paths/review-queue/\(newer)/decision",
                                                 json: #"{"outcome":"send-back","note":"name the bridge"}"#, token: second)
            #expect(back.status == 200 && back.json["stage"] as? String == "draft")
            let mine = try await client.sendJSON(.get, "/v1/paths/drafts/\(newer)", token: author)
            #expect((mine.json["review"] as? [String: Any])?["note"] as? String == "name the bridge")

            try await server.reviewQueue.catchUp()
            #expect((try await client.sendJSON(.get, "/v1/paths/review-queue", token: first).json["items"] as? [Any])?.isEmpty == true)
            _ = try await Self.publish(client, server, token: author, name: "third")
            try await server.reviewQueue.catchUp()
            let live = try await server.stores.queue.page(area: nil, after: nil, limit: 100)
            #expect(live.count == 1)
            try await server.reviewQueue.rebuild()
            #expect(try await server.stores.queue.page(area: nil, after: nil, limit: 100) == live, "rebuild = live")
        }
    }

    @Test("a moderator cannot review their own draft; unknown items are 404")
    func ownDraft() async throws {
        try await PathReviewApp.with { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let own = try await Self.publish(client, server, token: moderator, name: "mine")
            let claim = try await client.sendJSON(.post, "/v1/paths/review-queue/\(own)/claim", token: moderator)
            #expect(claim.status == 403 && claim.json["code"] as? String == "own-draft")
            #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(UUID())/claim", token: moderator).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/paths/review-queue/not-a-uuid", token: moderator).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/paths/review-queue/\(own)", token: moderator).json["stage"] as? String == "in-review")
        }
    }
}
