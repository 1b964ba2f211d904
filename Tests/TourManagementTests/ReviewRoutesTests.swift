import Contracts
import EventSourcing
import Foundation
import Geo
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

/// An application with the review and favourite routes over a ``ReviewHarness``, its projections running in the
/// background (as in the service).
enum ReviewApp {
    static func with(_ backend: TestBackend = .sqlite, _ body: @Sendable (any TestClientProtocol, ReviewHarness) async throws -> Void)
        async throws {
        try await ReviewHarness.with(backend) { h in
            let index = DestinationIndex(cities: [
                City(id: 2_773_300, name: "Krems an der Donau", country: "AT", coordinate: try Coordinate(latitude: 48.40921, longitude: 15.61415)),
            ])
            let app = try ServiceApplication(
                configuration: ServiceConfiguration(serviceName: "tour-management", port: 0, logLevel: .warning), metrics: ServiceMetrics(),
                keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]), background: h.projections,
                logger: MediaTestSupport.quiet
            ) { routes in
                ReviewRoutes(reviews: h.reviews) { ids in Dictionary(uniqueKeysWithValues: ids.map { ($0, "user \($0.uuidString.prefix(4))") }) }
                    .addRoutes(to: routes)
                FavouritesRoutes(favourites: Favourites(store: h.store, catalog: h.catalog), destinations: index) { ids in
                    Dictionary(uniqueKeysWithValues: ids.map { ($0, "Guide") })
                }.addRoutes(to: routes)
            }
            try await app.test(.router) { client in try await body(client, h) }
        }
    }

    static func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
                     token: String? = nil) async throws -> JSONReply {
        try await client.sendJSON(method, uri, json: json, token: token)
    }

    /// Waits until the entitlements read model (running in the background; its table may not exist yet) knows the grant.
    static func waitForEntitlement(_ h: ReviewHarness, tour: UUID, user: UUID) async throws {
        let entitlements = h.storage.entitlementReads
        try await eventually(timeout: .seconds(20), interval: .milliseconds(10)) { (try? await entitlements.isEntitled(user: user, tour: tour)) == true }
    }

    static func fields(_ json: [String: Any]) -> [String] {
        (json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
    }
}

@Suite("tour-management: reviews over HTTP (entitled travellers, the guide's reply, reports, moderation, bad input)")
struct ReviewRoutesTests {
    typealias App = ReviewApp

    @Test("bad input: rating outside 1–5 is 422, reviewing without an entitlement is 403, no token 401, other roles 403")
    func badInput() async throws {
        try await App.with { client, h in
            let tour = UUID.v4(), guide = UUID.v4(), owner = UUID.v4(), stranger = UUID.v4()
            try await h.publish(tour: tour, guide: guide)
            try await h.grant(tour: tour, user: owner, guide: guide)
            try await App.waitForEntitlement(h, tour: tour, user: owner)
            let ownerToken = try await TokenForge.token(owner, .traveller)
            let uri = "/v1/tours/\(tour.uuidString.lowercased())/reviews"

            for rating in ["0", "6", "-3", "100"] {
                let reply = try await App.send(client, .post, uri, #"{"rating":\#(rating)}"#, token: ownerToken)
                #expect(reply.status == 422, "rating \(rating)")
                #expect(reply.json["code"] as? String == "invalid-field")
                #expect(App.fields(reply.json) == ["rating"])
            }
            let long = try await App.send(client, .post, uri, #"{"rating":4,"text":"\#(String(repeating: "a", count: 2_001))"}"#, token: ownerToken)
            #expect(long.status == 422 && App.fields(long.json) == ["text"])
            #expect(try await App.send(client, .post, uri, #"{"rating":"five"}"#, token: ownerToken).status == 422)
            #expect(try await App.send(client, .post, uri, #"{"rating":4"#, token: ownerToken).status == 400)

            let notEntitled = try await App.send(client, .post, uri, #"{"rating":4}"#, token: try await TokenForge.token(stranger, .traveller))
            #expect(notEntitled.status == 403 && notEntitled.json["code"] as? String == "not-entitled")
            #expect(try await App.send(client, .post, uri, #"{"rating":4}"#).status == 401)
            #expect(try await App.send(client, .post, uri, #"{"rating":4}"#, token: try await TokenForge.token(guide, .guide)).status == 403)
            #expect(try await App.send(client, .put, "\(uri)/me", #"{"rating":4}"#, token: ownerToken).status == 404, "nothing to edit yet")
            #expect(try await App.send(client, .get, "\(uri)?limit=0").status == 422)
            #expect(try await App.send(client, .get, "\(uri)?cursor=nonsense").status == 422)
            #expect(try await App.send(client, .get, "/v1/tours/not-a-uuid/reviews").status == 404)
            #expect(try await App.send(client, .post, "/v1/reviews/\(UUID.v4().uuidString.lowercased())/reports", #"{"reason":"rude"}"#,
                                       token: ownerToken).status == 422)
        }
    }

    @Test("an entitled traveller posts (201) and edits; the list shows summary and reviews; the guide replies once; reports queue for moderators, who hide")
    func flow() async throws {
        try await App.with { client, h in
            let tour = UUID.v4(), guide = UUID.v4(), ana = UUID.v4(), ben = UUID.v4(), moderator = UUID.v4()
            let id = tour.uuidString.lowercased()
            try await h.publish(tour: tour, guide: guide)
            for user in [ana, ben] { try await h.grant(tour: tour, user: user, guide: guide) }
            for user in [ana, ben] { try await App.waitForEntitlement(h, tour: tour, user: user) }
            let anaToken = try await TokenForge.token(ana, .traveller), benToken = try await TokenForge.token(ben, .traveller)
            let guideToken = try await TokenForge.token(guide, .guide), moderatorToken = try await TokenForge.token(moderator, .moderator)

            let posted = try await App.send(client, .post, "/v1/tours/\(id)/reviews", #"{"rating":5,"text":"Loved <b>it</b>\r\nThanks\u0007"}"#,
                                            token: anaToken)
            #expect(posted.status == 201)
            #expect(posted.headers[.location] == "/v1/tours/\(id)/reviews/me")
            #expect(posted.json["text"] as? String == "Loved <b>it</b>\nThanks", "plain text, control characters stripped, no HTML escaping")
            #expect((posted.json["author"] as? [String: Any])?["id"] as? String == ana.uuidString.lowercased())
            let anaReview = try #require(posted.json["id"] as? String)
            let again = try await App.send(client, .post, "/v1/tours/\(id)/reviews", #"{"rating":4}"#, token: anaToken)
            #expect(again.status == 409 && again.json["code"] as? String == "review-exists")
            let edited = try await App.send(client, .put, "/v1/tours/\(id)/reviews/me", #"{"rating":4,"text":"Good"}"#, token: anaToken)
            #expect(edited.status == 200 && edited.json["rating"] as? Int == 4 && edited.json["editedAt"] != nil)
            #expect(try await App.send(client, .get, "/v1/tours/\(id)/reviews/me", token: anaToken).json["text"] as? String == "Good")
            #expect(try await App.send(client, .post, "/v1/tours/\(id)/reviews", #"{"rating":2}"#, token: benToken).status == 201)

            let list = try await client.waitForJSON("/v1/tours/\(id)/reviews", timeout: .seconds(20)) { ($0["reviews"] as? [Any])?.count == 2 }
            let summary = try #require(list["summary"] as? [String: Any])
            #expect(summary["count"] as? Int == 2 && summary["average"] as? Double == 3)
            let bayesian: Double = (5 * 3.5 + 6) / 7
            #expect(summary["bayesian"] as? Double == bayesian)
            #expect((summary["histogram"] as? [String: Int]) == ["1": 0, "2": 1, "3": 0, "4": 1, "5": 0])
            let reviews = try #require(list["reviews"] as? [[String: Any]])
            #expect(reviews.compactMap { ($0["author"] as? [String: Any])?["id"] as? String } == [ben, ana].map { $0.uuidString.lowercased() })
            #expect((reviews[0]["author"] as? [String: Any])?["name"] as? String == "user \(ben.uuidString.prefix(4))")
            let paged = try await App.send(client, .get, "/v1/tours/\(id)/reviews?limit=1")
            let cursor = try #require(paged.json["nextCursor"] as? String)
            let rest = try await App.send(client, .get, "/v1/tours/\(id)/reviews?limit=1&cursor=\(cursor)")
            #expect((rest.json["reviews"] as? [[String: Any]])?.first?["id"] as? String == anaReview && rest.json["nextCursor"] == nil)
            #expect(try await h.catalog.tour(tour)?.rating == TourRating(count: 2, sum: 6), "discovery's rating follows")

            let replyURI = "/v1/tours/\(id)/reviews/\(anaReview)/reply"
            #expect(try await App.send(client, .post, replyURI, #"{"text":"Hm"}"#, token: try await TokenForge.token(UUID.v4(), .guide)).status == 403)
            #expect(try await App.send(client, .post, replyURI, #"{"text":"Hm"}"#, token: anaToken).status == 403, "travellers do not reply")
            let replied = try await App.send(client, .post, replyURI, #"{"text":"Thank you, Ana!"}"#, token: guideToken)
            #expect(replied.status == 201 && (replied.json["reply"] as? [String: Any])?["text"] as? String == "Thank you, Ana!")
            let twice = try await App.send(client, .post, replyURI, #"{"text":"Again"}"#, token: guideToken)
            #expect(twice.status == 409 && twice.json["code"] as? String == "already-replied")

            let reportURI = "/v1/reviews/\(anaReview)/reports"
            #expect(try await App.send(client, .post, reportURI, #"{"reason":"spam"}"#).status == 401)
            let reported = try await App.send(client, .post, reportURI, #"{"reason":"spam"}"#, token: benToken)
            #expect(reported.status == 201 && reported.json["reason"] as? String == "spam")
            #expect(try await App.send(client, .post, reportURI, #"{"reason":"offensive"}"#, token: benToken).status == 409)
            #expect(try await App.send(client, .post, reportURI, #"{"reason":"off-topic"}"#, token: guideToken).status == 201)

            #expect(try await App.send(client, .get, "/v1/moderation/reviews", token: benToken).status == 403)
            let queue = try await client.waitForJSON("/v1/moderation/reviews", token: moderatorToken, timeout: .seconds(20)) {
                (($0["reviews"] as? [[String: Any]])?.first?["reports"] as? Int) == 2
            }
            let item = try #require((queue["reviews"] as? [[String: Any]])?.first)
            #expect((item["review"] as? [String: Any])?["id"] as? String == anaReview)
            #expect(item["reasons"] as? [String: Int] == ["spam": 1, "off-topic": 1])

            #expect(try await App.send(client, .post, "/v1/reviews/\(anaReview)/hide", token: benToken).status == 403)
            let hidden = try await App.send(client, .post, "/v1/reviews/\(anaReview)/hide", token: try await TokenForge.token(moderator, .admin))
            #expect(hidden.status == 200 && hidden.json["hidden"] as? Bool == true)
            let after = try await client.waitForJSON("/v1/tours/\(id)/reviews", timeout: .seconds(20)) { ($0["reviews"] as? [Any])?.count == 1 }
            #expect((after["summary"] as? [String: Any])?["count"] as? Int == 1)
            _ = try await client.waitForJSON("/v1/moderation/reviews", token: moderatorToken, timeout: .seconds(20)) { ($0["reviews"] as? [Any])?.isEmpty == true }
            let editHidden = try await App.send(client, .put, "/v1/tours/\(id)/reviews/me", #"{"rating":5}"#, token: anaToken)
            #expect(editHidden.status == 409 && editHidden.json["code"] as? String == "review-hidden")
            #expect(try await App.send(client, .get, "/v1/tours/\(id)/reviews/me", token: anaToken).json["hidden"] as? Bool == true)
            #expect(try await App.send(client, .post, "/v1/reviews/\(UUID.v4().uuidString.lowercased())/hide", token: moderatorToken).status == 404)
        }
    }
}
