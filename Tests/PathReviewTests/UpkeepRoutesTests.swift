import Contracts
import Foundation
import Logging
import HummingbirdTesting
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// Keeping an approved path current over HTTP (issue 20 point 6): condition reports move the published status by the
/// rule, a moderator's override holds over them until lifted, retirement resolves the open obstacles and is final —
/// every published step on the feed and in the approved network.
@Suite("path-review: condition reports, overrides and retirement over HTTP")
struct UpkeepRoutesTests {
    /// A draft (with one pothole) published and approved by a moderator; its id.
    static func approved(_ client: any TestClientProtocol, _ server: PathReviewServer, moderator: String) async throws -> String {
        let author = try await TokenForge.token(UUID())
        let id = try await ReviewRoutesTests.publish(client, server, token: author, name: "Hafen path")
        #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(id)/claim", token: moderator).status == 200)
        #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(id)/decision", json: #"{"outcome":"approve"}"#, token: moderator).status == 200)
        return id
    }

    /// The `waypoint.paths` events on the feed of the approved network (the feed also serves the authors' notifications and
    /// the review queue's twins `PathReviewOpened` / `PathReviewClosed`, left out here).
    static func published(_ client: any TestClientProtocol) async throws -> [String] {
        let feed = try await client.sendJSON(.get, "/v1/internal/events?after=0&limit=1000", token: "internal-token-for-path-review-tests")
        let left: Set<String> = [UserNotified.eventType, PathReviewOpened.eventType, PathReviewClosed.eventType]
        return (feed.json["events"] as? [[String: Any]] ?? []).compactMap { $0["eventType"] as? String }.filter { !left.contains($0) }
    }

    @Test("three reports move the condition; an override holds over reports until lifted; retire resolves obstacles, leaves the network and is final",
          arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let id = try await Self.approved(client, server, moderator: moderator)
            let report = #"{"condition":"requires-maintenance"}"#
            var last: JSONReply?
            for _ in 0..<3 {
                last = try await client.sendJSON(.post, "/v1/paths/\(id)/condition-reports", json: report, token: try await TokenForge.token(UUID()))
            }
            #expect(last?.status == 200 && last?.json["condition"] as? String == "requires-maintenance", "\(String(describing: last?.json))")
            let overridden = try await client.sendJSON(.put, "/v1/paths/\(id)/status-override", json: #"{"condition":"optimal"}"#, token: moderator)
            #expect(overridden.json["condition"] as? String == "optimal" && overridden.json["override"] as? String == "optimal")
            let ignored = try await client.sendJSON(.post, "/v1/paths/\(id)/condition-reports", json: report, token: try await TokenForge.token(UUID()))
            #expect(ignored.json["condition"] as? String == "optimal", "the override holds over reports")
            let again = try await client.sendJSON(.put, "/v1/paths/\(id)/status-override", json: #"{"condition":"optimal"}"#, token: moderator)
            #expect(again.json["version"] as? Int == ignored.json["version"] as? Int, "the same override again changes nothing")
            let lifted = try await client.sendJSON(.delete, "/v1/paths/\(id)/status-override", token: moderator)
            #expect(lifted.json["condition"] as? String == "requires-maintenance" && lifted.json["override"] == nil, "back to the reports' verdict")
            try await server.approvedNetwork.catchUp()
            let shown = try await client.sendJSON(.get, "/v1/paths/\(id)")
            let properties = shown.json["properties"] as? [String: Any] ?? [:]
            #expect(properties["condition"] as? String == "requires-maintenance" && properties["obstacleCount"] as? Int == 1)

            let retired = try await client.sendJSON(.post, "/v1/paths/\(id)/retire", token: moderator)
            #expect(retired.status == 200 && retired.json["retired"] as? Bool == true && retired.json["openObstacles"] as? Int == 0)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/retire", token: moderator).json["code"] as? String == "path-retired")
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/condition-reports", json: report, token: moderator)
                .json["code"] as? String == "path-retired")
            try await server.approvedNetwork.catchUp()
            #expect(try await client.sendJSON(.get, "/v1/paths/\(id)").status == 404, "retired paths leave the network")
            let published = try await Self.published(client)
            #expect(published == ["PathApproved", "PathObstacleConfirmed", "PathStatusChanged", "PathStatusChanged", "PathStatusChanged",
                                  "PathObstacleResolved", "PathRetired"], "\(published)")
        }
    }

    @Test("who may do what, and bad input: 401 without a token, 403 for a cyclist's override, 404 for a draft or unknown id, 422 for a bad condition")
    func refusals() async throws {
        try await PathReviewApp.with(.sqlite) { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let cyclist = try await TokenForge.token(UUID())
            let id = try await Self.approved(client, server, moderator: moderator)
            let body = #"{"condition":"medium"}"#
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/condition-reports", json: body).status == 401)
            #expect(try await client.sendJSON(.put, "/v1/paths/\(id)/status-override", json: body, token: cyclist).status == 403)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/retire", token: cyclist).status == 403)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(UUID())/condition-reports", json: body, token: cyclist).json["code"] as? String == "unknown-path")
            #expect(try await client.sendJSON(.post, "/v1/paths/not-a-uuid/retire", token: moderator).status == 404)
            let draft = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server, name: "unpublished"), token: cyclist)
            let draftId = try #require(draft.json["id"] as? String)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(draftId)/condition-reports", json: body, token: cyclist).status == 404, "a draft is no approved path")
            let bad = try await client.sendJSON(.post, "/v1/paths/\(id)/condition-reports", json: #"{"condition":"great"}"#, token: cyclist)
            #expect(bad.status == 422 && PathReviewApp.fields(bad.json) == ["condition"])
        }
    }
}

/// Obstacle reports on an approved path over HTTP: placed on the path, clustered (15 m, same type), confirmed, resolved.
@Suite("path-review: obstacle reports over HTTP")
struct ObstacleReportRoutesTests {
    @Test("a report near the draft's pothole joins it; another type opens a new obstacle; confirm raises sightings; a moderator resolves; off-path is 422",
          arguments: TestBackend.enabled)
    func obstacles(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let cyclist = try await TokenForge.token(UUID())
            let id = try await UpkeepRoutesTests.approved(client, server, moderator: moderator)
            try await server.approvedNetwork.catchUp()
            let path = try await client.sendJSON(.get, "/v1/paths/\(id)")
            let line = try #require((path.json["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
            let pothole = try #require(((path.json["properties"] as? [String: Any])?["obstacles"] as? [[String: Any]])?.first)
            let (lat, lng) = (try #require(pothole["latitude"] as? Double), try #require(pothole["longitude"] as? Double))
            // 5 m north of the draft's pothole: the same obstacle (15 m), projected back onto the path.
            let near = #"{"type":"pothole","point":{"lat":\#(lat + 5 / 111_195),"lng":\#(lng)},"note":"still there"}"#
            let joined = try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles", json: near, token: cyclist)
            let first = try #require((joined.json["obstacles"] as? [[String: Any]])?.first, "\(joined.status) \(joined.json)")
            #expect(joined.status == 200 && joined.json["openObstacles"] as? Int == 1 && first["sightings"] as? Int == 2)
            #expect((first["confidence"] as? Double).map { abs($0 - 0.75) < 1e-4 } == true, "0.5 → 0.75 on a second sighting at once (less the decay of the seconds between)")
            let glass = try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles", json: #"{"type":"glass","point":{"lat":\#(lat),"lng":\#(lng)}}"#, token: cyclist)
            #expect(glass.json["openObstacles"] as? Int == 2, "another type is another obstacle")
            let obstacleId = try #require(first["id"] as? String)
            let confirmed = try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles/\(obstacleId)/confirm", token: cyclist)
            #expect(((confirmed.json["obstacles"] as? [[String: Any]])?.first?["sightings"]) as? Int == 3)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles/\(obstacleId)/resolve", token: cyclist).status == 403)
            let resolved = try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles/\(obstacleId)/resolve", token: moderator)
            #expect(resolved.json["openObstacles"] as? Int == 1)
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles/\(obstacleId)/confirm", token: cyclist).json["code"] as? String == "unknown-obstacle")
            // 0.01° north of the line's first point: ~1.1 km off the path.
            let far = #"{"type":"bump","point":{"lat":\#(line[0][1] + 0.01),"lng":\#(line[0][0])}}"#
            let off = try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles", json: far, token: cyclist)
            #expect(off.status == 422 && off.json["title"] != nil, "\(off.json)")
            #expect(try await client.sendJSON(.post, "/v1/paths/\(id)/obstacles", json: #"{"type":"dragon","point":{"lat":\#(lat),"lng":\#(lng)}}"#, token: cyclist).status == 422)
            try await server.approvedNetwork.catchUp()
            let shown = try await client.sendJSON(.get, "/v1/paths/\(id)")
            #expect(((shown.json["properties"] as? [String: Any])?["obstacleCount"]) as? Int == 1, "the network shows the one left open")
            let published = try await UpkeepRoutesTests.published(client)
            #expect(published == ["PathApproved", "PathObstacleConfirmed", "PathObstacleConfirmed", "PathObstacleConfirmed", "PathObstacleConfirmed",
                                  "PathObstacleResolved"], "the reports themselves stay in the log: \(published)")
        }
    }
}

/// The fading sweep on the approved network: an obstacle unconfirmed for the fade days fades, one confirmed since stays.
@Suite("path-review: obstacles fade")
struct ObstacleFadeSweepTests {
    @Test("nothing fades before the fade days; after them the unconfirmed obstacle fades once (published), the confirmed one stays",
          arguments: TestBackend.enabled)
    func fading(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let moderator = try await TokenForge.token(UUID(), .moderator)
            let id = try await UpkeepRoutesTests.approved(client, server, moderator: moderator)
            try await server.approvedNetwork.catchUp()
            let sweep = ObstacleFadeSweep(drafts: server.drafts, lookup: server.networkLookup, fadeDays: 30, logger: Logger(label: "test"))
            let now = Date()
            #expect(try await sweep.sweep(now: now.addingTimeInterval(29 * 86_400)) == 0)
            #expect(try await sweep.sweep(now: now.addingTimeInterval(31 * 86_400)) == 1)
            #expect(try await sweep.sweep(now: now.addingTimeInterval(31 * 86_400)) == 0, "the stream already says it faded (the read model lags)")
            try await server.approvedNetwork.catchUp()
            let shown = try await client.sendJSON(.get, "/v1/paths/\(id)")
            #expect(((shown.json["properties"] as? [String: Any])?["obstacleCount"]) as? Int == 0)
            #expect(try await sweep.sweep(now: now.addingTimeInterval(400 * 86_400)) == 0, "nothing left to fade")
            #expect(try await UpkeepRoutesTests.published(client).last == "PathObstacleResolved")
        }
    }
}
