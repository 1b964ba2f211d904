import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import Messaging
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// What the author lives through after publishing: the outcome on the push stream, the path's whole history, and
/// what an erased account leaves behind.
@Suite("path-review: notifications, history and erasure of authors")
struct AuthorLifecycleTests {
    /// Publishes a draft as `author`, then has `moderator` claim and decide it; the draft's id.
    static func decided(_ client: any TestClientProtocol, _ server: PathReviewServer, author: String, moderator: String, name: String,
                        outcome: String, note: String? = nil) async throws -> String {
        let id = try await ReviewRoutesTests.publish(client, server, token: author, name: name)
        #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(id)/claim", token: moderator).status == 200)
        let body = note.map { #"{"outcome":"\#(outcome)","note":"\#($0)"}"# } ?? #"{"outcome":"\#(outcome)"}"#
        let decided = try await client.sendJSON(.post, "/v1/paths/review-queue/\(id)/decision", json: body, token: moderator)
        #expect(decided.status == 200, "\(decided.status) \(decided.json)")
        return id
    }

    @Test("each decision notifies the author once (approve, reject with the reason, send back with the changes); the moderator is not named; the feed serves them",
          arguments: TestBackend.enabled)
    func notifications(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let authorID = UUID(), moderatorID = UUID()
            let author = try await TokenForge.token(authorID), moderator = try await TokenForge.token(moderatorID, .moderator)
            let approved = try await Self.decided(client, server, author: author, moderator: moderator, name: "Hafen loop", outcome: "approve")
            let rejected = try await Self.decided(client, server, author: author, moderator: moderator, name: "Shortcut", outcome: "reject",
                                                  note: "crosses private land")
            let sentBack = try await Self.decided(client, server, author: author, moderator: moderator, name: "Bridge", outcome: "send-back",
                                                  note: "name the bridge")
            try await server.notifier.catchUp()
            try await server.notifier.catchUp()
            let stored = try await server.storage.store.readStream(UserNotifications.streamID(user: authorID))
            let notes = try stored.map { try $0.decode(UserNotified.self) }
            #expect(notes.map(\.kind) == [.pathApproved, .pathRejected, .pathChangesRequested], "once each, also after a second catch-up")
            #expect(notes.map { $0.data["draftId"] } == [approved, rejected, sentBack])
            #expect(notes[0].data["pathId"] == approved)
            #expect(notes[0].body.contains("“Hafen loop”"))
            #expect(notes[1].body.contains("crosses private land") && notes[2].body.contains("name the bridge"))
            let moderatorText = moderatorID.uuidString.lowercased()
            #expect(notes.allSatisfy { !$0.body.contains(moderatorText) && !$0.data.values.contains(moderatorText) }, "nobody else's data")
            #expect(notes.allSatisfy { $0.title.count <= 100 && $0.body.count <= 300 })
            #expect(try await server.storage.store.readStream(UserNotifications.streamID(user: moderatorID)).isEmpty)

            let feed = try await client.sendJSON(.get, "/v1/internal/events?after=0&limit=1000", token: PathReviewApp.internalToken)
            let types = (feed.json["events"] as? [[String: Any]] ?? []).compactMap { $0["eventType"] as? String }
            #expect(types.filter { $0 == "UserNotified" }.count == 3)
            #expect(!types.contains("PathReviewDecided") && !types.contains("PathDraftCreated"), "review steps stay in the log")
        }
    }

    @Test("the rules: a decision without its author notifies nobody; a long reason is cut to the body's 300 characters; other events are not triggers")
    func rules() throws {
        func envelope(_ decision: PathReviewDecided) throws -> EventEnvelope {
            let event = try decision.newEvent(metadata: EventMetadata())
            return EventEnvelope(eventID: event.eventID, streamID: PathDraftAggregate.streamID(decision.draftId), streamVersion: 4, position: 9,
                                 eventType: event.eventType, schemaVersion: event.schemaVersion, payload: event.payload, metadata: event.metadata,
                                 recordedAt: Date())
        }
        let draft = UUID(), author = UUID()
        let older = PathReviewDecided(draftId: draft, moderatorId: UUID(), outcome: .approve, note: nil, decidedAt: Date())
        #expect(try PathNotificationRules.notification(for: envelope(older)) == nil)
        let long = PathReviewDecided(draftId: draft, moderatorId: UUID(), outcome: .reject, note: String(repeating: "too steep ", count: 100),
                                     decidedAt: Date(), authorId: author, name: String(repeating: "n", count: 200))
        let event = try envelope(long)
        let note = try #require(try PathNotificationRules.notification(for: event))
        #expect(note.userId == author && note.body.count == 300 && note.body.hasSuffix("…"))
        #expect(note.notificationId == UserNotifications.notificationID(for: event.eventID), "derived from the decision: a repeat is the same")
        let created = try PathDraftCreated(draftId: draft, authorId: author, content: PathDraftAggregateTests.content(), createdAt: Date())
            .newEvent(metadata: EventMetadata())
        let other = EventEnvelope(eventID: created.eventID, streamID: "x", streamVersion: 1, position: 1, eventType: created.eventType,
                                  schemaVersion: 1, payload: created.payload, metadata: created.metadata, recordedAt: Date())
        #expect(try PathNotificationRules.notification(for: other) == nil)
    }

    @Test("history: the author reads every step with roles, a moderator also who acted; others 404; pages by version",
          arguments: TestBackend.enabled)
    func history(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { client, server in
            let moderatorID = UUID()
            let author = try await TokenForge.token(UUID()), moderator = try await TokenForge.token(moderatorID, .moderator)
            let stranger = try await TokenForge.token(UUID())
            let id = try await Self.decided(client, server, author: author, moderator: moderator, name: "Hafen loop", outcome: "send-back",
                                            note: "add the ferry")
            let mine = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history", token: author)
            #expect(mine.status == 200, "\(mine.json)")
            let entries = mine.json["entries"] as? [[String: Any]] ?? []
            #expect(entries.compactMap { $0["type"] as? String } == ["created", "published", "claimed", "decided"])
            #expect(entries.compactMap { $0["actor"] as? String } == ["author", "author", "moderator", "moderator"])
            #expect(entries.allSatisfy { $0["actorId"] == nil }, "the author sees roles")
            #expect(entries.last?["note"] as? String == "add the ferry" && entries.last?["outcome"] as? String == "send-back")
            // Versions 3 and 6 are the published twins of publishing and deciding (PathReviewOpened, PathReviewClosed): no entry.
            #expect(entries.compactMap { $0["version"] as? Int } == [1, 2, 4, 5])

            let theirs = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history", token: moderator)
            #expect((theirs.json["entries"] as? [[String: Any]])?[2]["actorId"] as? String == moderatorID.uuidString.lowercased())
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history", token: stranger).status == 404)
            let unpublished = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server, name: "unpublished"),
                                                        token: author)
            let hidden = try #require(unpublished.json["id"] as? String)
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(hidden)/history", token: moderator).status == 404,
                    "a draft never published is its author's alone")
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(UUID())/history", token: author).status == 404)

            let first = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history?limit=3", token: author)
            #expect((first.json["entries"] as? [Any])?.count == 3 && first.json["nextAfter"] as? Int == 4)
            let rest = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history?after=4", token: author)
            #expect((rest.json["entries"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["decided"] && rest.json["nextAfter"] == nil)
            let bad = try await client.sendJSON(.get, "/v1/paths/drafts/\(id)/history?after=-1&limit=0", token: author)
            #expect(bad.status == 422 && Set(PathReviewApp.fields(bad.json)) == ["after", "limit"])
        }
    }

    @Test("UserErased: the author's drafts leave every list and the queue, their approved path stays with no author; done once; rebuild = live",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        try await PathReviewApp.with(backend) { (client: any TestClientProtocol, server: PathReviewServer, auth: AuthFeedStub) in
            let authorID = UUID()
            let author = try await TokenForge.token(authorID), moderator = try await TokenForge.token(UUID(), .moderator)
            let other = try await TokenForge.token(UUID())
            let approved = try await Self.decided(client, server, author: author, moderator: moderator, name: "Hafen loop", outcome: "approve")
            let waiting = try await ReviewRoutesTests.publish(client, server, token: author, name: "waiting")
            let fresh = try await client.sendJSON(.post, "/v1/paths/drafts", json: try PathDraftRoutesTests.body(server, name: "fresh"), token: author)
            let kept = try await ReviewRoutesTests.publish(client, server, token: other, name: "someone else's")
            _ = try await client.waitForJSON("/v1/paths/drafts", listing: 3, under: "drafts", token: author, timeout: .seconds(20))

            try await auth.erase(authorID)
            // The server's own worker may carry it out first: wait on the log, not on which worker did it.
            try await waitUntil("the author's three drafts are erased", timeout: .seconds(30), interval: .milliseconds(100)) {
                _ = try await server.authorErasure.applyPending()
                return try await server.storage.store.readAll(after: 0, limit: 1_000).filter { $0.eventType == PathDraftAuthorErased.eventType }.count == 3
            }
            _ = try await client.waitForJSON("/v1/paths/drafts", listing: 0, under: "drafts", token: author, timeout: .seconds(20))
            for id in [approved, waiting, try #require(fresh.json["id"] as? String)] {
                #expect(try await client.sendJSON(.get, "/v1/paths/drafts/\(id)", token: author).status == 404)
            }
            try await server.reviewQueue.catchUp()
            let queue = try await client.sendJSON(.get, "/v1/paths/review-queue", token: moderator)
            #expect((queue.json["items"] as? [[String: Any]])?.compactMap { $0["draftId"] as? String } == [kept], "the waiting draft left the queue")
            #expect(try await client.sendJSON(.post, "/v1/paths/review-queue/\(waiting)/claim", token: moderator).status == 404)
            try await server.approvedNetwork.catchUp()
            #expect(try await client.sendJSON(.get, "/v1/paths/\(approved)").status == 200, "the approved path stays on the network")
            let history = try await client.sendJSON(.get, "/v1/paths/drafts/\(approved)/history", token: moderator)
            #expect((history.json["entries"] as? [[String: Any]])?.last?["type"] as? String == "author-erased")
            #expect(try await server.authorErasure.applyPending() == 0, "done once")
            let erasures = try await server.storage.store.readAll(after: 0, limit: 1_000).filter { $0.eventType == PathDraftAuthorErased.eventType }
            #expect(erasures.count == 3)

            try await server.draftList.catchUp()
            let live = try await server.stores.drafts.page(author: authorID, after: nil, limit: 100)
            #expect(live.isEmpty)
            let liveQueue = try await server.stores.queue.page(area: nil, after: nil, limit: 100)
            try await server.draftList.rebuild()
            try await server.reviewQueue.rebuild()
            #expect(try await server.stores.drafts.page(author: authorID, after: nil, limit: 100) == live, "rebuild = live")
            #expect(try await server.stores.queue.page(area: nil, after: nil, limit: 100) == liveQueue, "rebuild = live")
        }
    }

    @Test("a session auth revoked is refused before its token expires")
    func revokedSession() async throws {
        try await PathReviewApp.with { (client: any TestClientProtocol, _: PathReviewServer, auth: AuthFeedStub) in
            let user = UUID(), session = UUID()
            let token = try await TestSigningKey.primary.sign(TokenForge.claims(subject: user.uuidString.lowercased(),
                                                                                 sessionId: session.uuidString.lowercased()))
            #expect(try await client.sendJSON(.get, "/v1/paths/drafts", token: token).status == 200)
            try await auth.revoke(session: session, of: user)
            try await eventually(timeout: .seconds(30), interval: .milliseconds(100)) {
                try await client.sendJSON(.get, "/v1/paths/drafts", token: token).status == 401
            }
        }
    }
}
