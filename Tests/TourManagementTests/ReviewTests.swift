import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Synchronization
import Testing
import TourManagement

/// Storage, projections and commands for review tests on one backend.
struct ReviewHarness: Sendable {
    static let t0 = Date(timeIntervalSince1970: 1_795_341_600)

    let storage: ServiceStorage
    let store: AnyEventStore
    let reviews: ReviewCommands
    let catalog: TourCatalog
    let entitlementsProjection: any ProjectionRunning
    let reviewsProjection: any ProjectionRunning
    let discovery: any ProjectionRunning
    let clock: TestClock

    /// A clock that moves one second per reading, so every event has its own time.
    final class TestClock: Sendable {
        private let current = Mutex(ReviewHarness.t0)
        func now() -> Date { current.withLock { $0 = $0.addingTimeInterval(1); return $0 } }
    }

    static func with(_ backend: TestBackend, _ body: @Sendable (ReviewHarness) async throws -> Void) async throws {
        try await backend.withServiceStorage("tour-management", logger: MediaTestSupport.quiet) { storage in
            let clock = TestClock()
            let harness = ReviewHarness(
                storage: storage, store: AnyEventStore(storage.store),
                reviews: ReviewCommands(storage: storage, stores: try await TourManagementStores.open(storage), readModelTimeout: .seconds(2),
                                        now: { clock.now() }),
                catalog: storage.tourCatalog,
                entitlementsProjection: storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection()),
                reviewsProjection: storage.projection(sqlite: SQLiteReviewsProjection(), postgres: PostgresReviewsProjection()),
                discovery: storage.projection(sqlite: SQLiteDiscoveryProjection(), postgres: PostgresDiscoveryProjection()),
                clock: clock)
            try await body(harness)
        }
    }

    var projections: [any ProjectionRunning] { [entitlementsProjection, reviewsProjection, discovery] }

    func catchUp() async throws {
        for projection in projections { try await projection.catchUp() }
    }

    static func publishedEvent(tour: UUID, guide: UUID, title: String = "Krems old town", revision: Int = 1) -> TourPublished {
        let stops = [
            TourStop(stopId: .v4(), name: "Steiner Tor", description: "The gate.", location: LatLng(lat: 48.4098, lng: 15.5976),
                     triggerRadiusMetres: 30, media: []),
            TourStop(stopId: .v4(), name: "Piaristenkirche", description: "Baroque.", location: LatLng(lat: 48.4112, lng: 15.6010),
                     triggerRadiusMetres: 30, media: []),
        ]
        let details = TourDetails(title: title, description: "Gates and churches.", destinationId: 2_773_300, themes: [.history],
                                  languages: ["de"], price: Money(amountMinor: 0, currency: .eur), estimatedMinutes: 60, difficulty: .easy,
                                  mode: .walk)
        return TourPublished(tourId: tour, guideId: guide, revision: revision, details: details, stops: stops,
                             lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()), publishedAt: t0)
    }

    func publish(tour: UUID, guide: UUID, title: String = "Krems old town") async throws {
        _ = try await store.append(try Self.publishedEvent(tour: tour, guide: guide, title: title).newEvent(), to: TourAggregate.streamID(tour),
                                   expectedVersion: .any)
    }

    func unpublish(tour: UUID) async throws {
        _ = try await store.append(try TourUnpublished(tourId: tour, unpublishedAt: Self.t0).newEvent(), to: TourAggregate.streamID(tour),
                                   expectedVersion: .any)
    }

    static func accessStream(tour: UUID, user: UUID) -> String {
        "access-\(tour.uuidString.lowercased())-\(user.uuidString.lowercased())"
    }

    /// The traveller owns the (free) tour.
    func grant(tour: UUID, user: UUID, guide: UUID) async throws {
        _ = try await store.append(try TourAcquired(tourId: tour, userId: user, guideId: guide, revision: 1, acquiredAt: Self.t0).newEvent(),
                                   to: Self.accessStream(tour: tour, user: user), expectedVersion: .any)
    }

    /// The traveller bought the tour and was refunded.
    func refunded(tour: UUID, user: UUID, guide: UUID) async throws {
        let purchase = UUID.v4(), price = Money(amountMinor: 1_000, currency: .eur), fee = Money(amountMinor: 200, currency: .eur)
        let earnings = Money(amountMinor: 800, currency: .eur)
        for event: any EventPayload in [
            PurchaseCompleted(purchaseId: purchase, tourId: tour, userId: user, guideId: guide, revision: 1, price: price, platformFee: fee,
                              guideEarnings: earnings, providerPaymentId: "pi", completedAt: Self.t0),
            PurchaseRefunded(purchaseId: purchase, tourId: tour, userId: user, guideId: guide, amount: price, platformFee: fee,
                             guideEarnings: earnings, refundedAt: Self.t0.addingTimeInterval(60)),
        ] {
            _ = try await store.append(try event.newEvent(), to: Self.accessStream(tour: tour, user: user), expectedVersion: .any)
        }
    }

    /// Everything a review read can show, for rebuild = live comparisons.
    struct Snapshot: Equatable {
        var page: ReviewPage
        var queue: [ModerationItem]
        var tour: PublishedTour?
    }

    func snapshot(_ tour: UUID) async throws -> Snapshot {
        Snapshot(page: try await reviews.list(tourId: tour, cursor: nil, limit: 50),
                 queue: try await reviews.moderationQueue(cursor: nil, limit: 50).items, tour: try await catalog.tour(tour))
    }
}

/// Expects `body` to throw a problem with `status` and `code`.
func expectProblem(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(status) \(code), got success", sourceLocation: sourceLocation)
    } catch let error as any ProblemConvertible {
        let problem = error.problem
        #expect(Int(problem.status.code) == status && problem.code == code, "\(problem)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(status) \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("tour-management: reviews and ratings (aggregate, read model, discovery ratings, erasure) on both backends")
struct ReviewTests {
    @Test("text is cleaned: line breaks normalised, tabs become spaces, other control and bidi characters removed, trimmed; NFC")
    func textRules() {
        #expect(ReviewText.clean("  Great\r\ntour\u{07}!\tReally\r\u{202E}good\u{0000} \n") == "Great\ntour! Really\ngood")
        #expect(ReviewText.clean("Cafe\u{301}") == "Café")
        #expect(ReviewText.clean("\u{1B}[31m\n\t ") == "[31m")
        #expect(ReviewText.clean("<b>bold</b> & more") == "<b>bold</b> & more", "plain text: markup is kept as the characters it is")
        var validator = Validator()
        #expect(ReviewText.validated(" \u{07}\n ", field: "text", into: &validator) == nil, "blank after cleaning = no text")
        #expect(ReviewText.validated(String(repeating: "é", count: 2_000) + "\u{07}", field: "text", into: &validator)?.count == 2_000)
        #expect(validator.isValid)
        _ = ReviewText.validated(String(repeating: "a", count: 2_001), field: "text", into: &validator)
        #expect(validator.fieldErrors.map(\.code) == ["too-long"])
    }

    @Test("post, edit, reply, report, hide fold into the list, the histogram, the moderation queue and discovery; rebuild = live",
          arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await ReviewHarness.with(backend) { h in
            let tour = UUID.v4(), guide = UUID.v4(), ana = UUID.v4(), ben = UUID.v4(), cleo = UUID.v4(), moderator = UUID.v4()
            try await h.publish(tour: tour, guide: guide)
            for user in [ana, ben, cleo] { try await h.grant(tour: tour, user: user, guide: guide) }
            try await h.catchUp()

            let posted = try await h.reviews.post(tourId: tour, author: ana, rating: 5, text: "Great\r\ntour\u{07}!")
            #expect(posted.text == "Great\ntour!" && posted.rating == 5 && posted.guideId == guide)
            _ = try await h.reviews.post(tourId: tour, author: ben, rating: 3, text: nil)
            let third = try await h.reviews.post(tourId: tour, author: cleo, rating: 4, text: "Nice views")
            let edited = try await h.reviews.edit(tourId: tour, author: ana, rating: 4, text: "Good tour, long walk.")
            #expect(edited.rating == 4 && edited.editedAt != nil)
            try await h.catchUp()
            let benReview = try #require(try await h.reviews.list(tourId: tour, cursor: nil, limit: 10).reviews.first { $0.authorId == ben })
            let replied = try await h.reviews.reply(tourId: tour, reviewId: benReview.reviewId, guide: guide, text: "Thanks, Ben!")
            #expect(replied.reply?.text == "Thanks, Ben!")
            try await h.catchUp()

            var page = try await h.reviews.list(tourId: tour, cursor: nil, limit: 10)
            #expect(page.reviews.map(\.authorId) == [cleo, ben, ana], "newest first")
            #expect(page.reviews.map(\.text) == ["Nice views", nil, "Good tour, long walk."])
            #expect(page.reviews[1].reply?.text == "Thanks, Ben!")
            #expect(page.ratings.histogram == [0, 0, 1, 2, 0])
            #expect(page.ratings.rating == TourRating(count: 3, sum: 11))
            let bayesian: Double = (5 * 3.5 + 11) / 8
            #expect(page.ratings.rating.bayesian == bayesian)
            #expect(try await h.catalog.tour(tour)?.rating == TourRating(count: 3, sum: 11), "discovery has the same rating")
            var filter = DiscoveryFilter()
            filter.minRating = 3.5
            #expect(try await h.catalog.search(DiscoveryQuery(filter: filter, sort: .rating)).hits.map(\.tour.tourId) == [tour])
            filter.minRating = 3.7
            #expect(try await h.catalog.search(DiscoveryQuery(filter: filter, sort: .rating)).hits.isEmpty)

            // Pages follow the cursor.
            let first = try await h.reviews.list(tourId: tour, cursor: nil, limit: 2)
            #expect(first.reviews.map(\.authorId) == [cleo, ben])
            #expect(first.nextCursor != nil)
            let second = try await h.reviews.list(tourId: tour, cursor: first.nextCursor, limit: 2)
            #expect(second.reviews.map(\.authorId) == [ana] && second.nextCursor == nil)

            // Reports: once per user; the queue lists reported, visible reviews; a moderator hides one.
            try await h.reviews.report(reviewId: third.reviewId, reporter: ana, reason: .offensive)
            try await h.reviews.report(reviewId: third.reviewId, reporter: guide, reason: .spam)
            await expectProblem(409, "already-reported") { try await h.reviews.report(reviewId: third.reviewId, reporter: ana, reason: .spam) }
            try await h.catchUp()
            let queue = try await h.reviews.moderationQueue(cursor: nil, limit: 10)
            #expect(queue.items.map(\.review.reviewId) == [third.reviewId])
            #expect(queue.items.first?.reports == 2 && queue.items.first?.reasons == ["offensive": 1, "spam": 1])
            #expect(queue.items.first?.review.text == "Nice views", "moderators read the text")
            let live = try await h.snapshot(tour)
            for projection in h.projections { try await projection.rebuild() }
            #expect(try await h.snapshot(tour) == live, "rebuild = live")

            let hidden = try await h.reviews.hide(reviewId: third.reviewId, moderator: moderator)
            #expect(hidden.hidden)
            #expect(try await h.reviews.hide(reviewId: third.reviewId, moderator: moderator).hidden, "hiding again changes nothing")
            await expectProblem(409, "review-hidden") { _ = try await h.reviews.edit(tourId: tour, author: cleo, rating: 5, text: nil) }
            await expectProblem(409, "review-hidden") { try await h.reviews.report(reviewId: third.reviewId, reporter: ben, reason: .spam) }
            try await h.catchUp()
            page = try await h.reviews.list(tourId: tour, cursor: nil, limit: 10)
            #expect(page.reviews.map(\.authorId) == [ben, ana])
            #expect(page.ratings.histogram == [0, 0, 1, 1, 0])
            #expect(try await h.reviews.moderationQueue(cursor: nil, limit: 10).items.isEmpty)
            #expect(try await h.catalog.tour(tour)?.rating == TourRating(count: 2, sum: 7))
            #expect(try await h.reviews.myReview(tourId: tour, author: cleo)?.hidden == true, "the author still sees their hidden review")

            let afterHide = try await h.snapshot(tour)
            for projection in h.projections { try await projection.rebuild() }
            #expect(try await h.snapshot(tour) == afterHide, "rebuild = live")
        }
    }

    @Test("only entitled travellers rate 1–5, once; the guide replies once; refunds and the guide's own tour are refused",
          arguments: TestBackend.enabled)
    func rules(backend: TestBackend) async throws {
        try await ReviewHarness.with(backend) { h in
            let tour = UUID.v4(), guide = UUID.v4(), otherGuide = UUID.v4(), owner = UUID.v4(), stranger = UUID.v4(), refunded = UUID.v4()
            try await h.publish(tour: tour, guide: guide)
            try await h.grant(tour: tour, user: owner, guide: guide)
            try await h.grant(tour: tour, user: guide, guide: guide)
            try await h.refunded(tour: tour, user: refunded, guide: guide)
            try await h.catchUp()

            for rating in [0, 6, -1] {
                await expectProblem(422, "invalid-field") { _ = try await h.reviews.post(tourId: tour, author: owner, rating: rating, text: nil) }
            }
            await expectProblem(422, "invalid-field") {
                _ = try await h.reviews.post(tourId: tour, author: owner, rating: 4, text: String(repeating: "x", count: 2_001))
            }
            await expectProblem(403, "not-entitled") { _ = try await h.reviews.post(tourId: tour, author: stranger, rating: 4, text: nil) }
            await expectProblem(403, "not-entitled") { _ = try await h.reviews.post(tourId: tour, author: refunded, rating: 4, text: nil) }
            await expectProblem(403, "own-tour") { _ = try await h.reviews.post(tourId: tour, author: guide, rating: 5, text: nil) }
            await expectProblem(404, "unknown-review") { _ = try await h.reviews.edit(tourId: tour, author: owner, rating: 4, text: nil) }

            let review = try await h.reviews.post(tourId: tour, author: owner, rating: 2, text: "Meh")
            await expectProblem(409, "review-exists") { _ = try await h.reviews.post(tourId: tour, author: owner, rating: 5, text: nil) }
            try await h.catchUp()
            await expectProblem(403, "not-tour-owner") {
                _ = try await h.reviews.reply(tourId: tour, reviewId: review.reviewId, guide: otherGuide, text: "Hm")
            }
            await expectProblem(422, "invalid-field") { _ = try await h.reviews.reply(tourId: tour, reviewId: review.reviewId, guide: guide, text: " \u{07}") }
            await expectProblem(404, "unknown-review") { _ = try await h.reviews.reply(tourId: UUID.v4(), reviewId: review.reviewId, guide: guide, text: "Hi") }
            _ = try await h.reviews.reply(tourId: tour, reviewId: review.reviewId, guide: guide, text: "Sorry to hear that.")
            await expectProblem(409, "already-replied") {
                _ = try await h.reviews.reply(tourId: tour, reviewId: review.reviewId, guide: guide, text: "Again")
            }
            // Edits keep the reply; the rating moves in the histogram and in discovery.
            let edited = try await h.reviews.edit(tourId: tour, author: owner, rating: 3, text: nil)
            #expect(edited.text == nil && edited.reply?.text == "Sorry to hear that.")
            try await h.catchUp()
            #expect(try await h.reviews.list(tourId: tour, cursor: nil, limit: 5).ratings.histogram == [0, 0, 1, 0, 0])
            #expect(try await h.catalog.tour(tour)?.rating == TourRating(count: 1, sum: 3))
        }
    }

    @Test("erasing an author destroys their key (text gone at once), hides their reviews (ratings stop counting), idempotently; an erased guide's reply loses its text",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        try await ReviewHarness.with(backend) { h in
            let tourA = UUID.v4(), tourB = UUID.v4(), guide = UUID.v4(), author = UUID.v4(), other = UUID.v4()
            for tour in [tourA, tourB] {
                try await h.publish(tour: tour, guide: guide)
                for user in [author, other] { try await h.grant(tour: tour, user: user, guide: guide) }
            }
            let late = UUID.v4()
            try await h.publish(tour: late, guide: guide)
            try await h.grant(tour: late, user: author, guide: guide)
            try await h.catchUp()
            let a = try await h.reviews.post(tourId: tourA, author: author, rating: 1, text: "Personal words")
            _ = try await h.reviews.post(tourId: tourB, author: author, rating: 2, text: nil)
            let o = try await h.reviews.post(tourId: tourA, author: other, rating: 5, text: "Lovely")
            try await h.catchUp()
            _ = try await h.reviews.reply(tourId: tourA, reviewId: o.reviewId, guide: guide, text: "Thank you")
            _ = try await h.reviews.reply(tourId: tourA, reviewId: a.reviewId, guide: guide, text: "Sorry")
            try await h.catchUp()
            #expect(try await h.catalog.tour(tourA)?.rating == TourRating(count: 2, sum: 6))

            try await h.reviews.eraseAuthor(author)
            #expect(try await h.reviews.myReview(tourId: tourA, author: author)?.text == nil, "the key is gone: the text cannot be opened")
            try await h.catchUp()
            let page = try await h.reviews.list(tourId: tourA, cursor: nil, limit: 10)
            #expect(page.reviews.map(\.authorId) == [other])
            #expect(page.ratings.rating == TourRating(count: 1, sum: 5))
            #expect(try await h.reviews.list(tourId: tourB, cursor: nil, limit: 10).reviews.isEmpty)
            #expect(try await h.catalog.tour(tourA)?.rating == TourRating(count: 1, sum: 5))
            #expect(try await h.catalog.tour(tourB)?.rating == TourRating(count: 0, sum: 0))
            let hiddenEvents = try await h.store.readAll(after: 0, limit: 1_000).filter { $0.eventType == ReviewHidden.eventType }
            #expect(hiddenEvents.count == 2)
            #expect(try hiddenEvents.allSatisfy { try $0.decode(ReviewHidden.self).reason == "author-erased" })
            await expectProblem(403, "account-erased") { _ = try await h.reviews.post(tourId: late, author: author, rating: 5, text: nil) }

            let head = try await h.store.headPosition()
            try await h.reviews.eraseAuthor(author)
            #expect(try await h.store.headPosition() == head, "erasing again appends nothing")

            // The guide is erased: their replies keep their date but lose their words.
            try await h.reviews.eraseAuthor(guide)
            try await h.catchUp()
            let reply = try #require(try await h.reviews.list(tourId: tourA, cursor: nil, limit: 10).reviews.first?.reply)
            #expect(reply.text == nil)
            #expect(try await h.reviews.list(tourId: tourA, cursor: nil, limit: 10).reviews.map(\.authorId) == [other],
                    "a guide has no reviews of their own to hide")
        }
    }

    @Test("discovery counts a review whose tour had no row yet once the tour is published, and keeps ratings across re-publication",
          arguments: TestBackend.enabled)
    func discoveryOrder(backend: TestBackend) async throws {
        try await ReviewHarness.with(backend) { h in
            let tour = UUID.v4(), guide = UUID.v4(), ana = UUID.v4(), ben = UUID.v4()
            func append(_ event: some EventPayload, user: UUID) async throws {
                _ = try await h.store.append(try event.newEvent(), to: ReviewEvents.streamID(tour: tour, user: user), expectedVersion: .any)
            }
            let anaReview = UUID.v4()
            try await append(ReviewPosted(reviewId: anaReview, tourId: tour, userId: ana, guideId: guide, rating: 4, text: nil,
                                          postedAt: ReviewHarness.t0), user: ana)
            try await append(ReviewPosted(reviewId: UUID.v4(), tourId: tour, userId: ben, guideId: guide, rating: 2, text: nil,
                                          postedAt: ReviewHarness.t0), user: ben)
            try await append(ReviewEdited(reviewId: anaReview, tourId: tour, userId: ana, guideId: guide, previousRating: 4, rating: 5, text: nil,
                                          editedAt: ReviewHarness.t0), user: ana)
            try await h.discovery.catchUp()
            #expect(try await h.catalog.tour(tour) == nil)
            try await h.publish(tour: tour, guide: guide)
            try await h.discovery.catchUp()
            #expect(try await h.catalog.tour(tour)?.rating == TourRating(count: 2, sum: 7))
            try await h.unpublish(tour: tour)
            _ = try await h.store.append(try ReviewHarness.publishedEvent(tour: tour, guide: guide, title: "Krems again", revision: 2).newEvent(),
                                         to: TourAggregate.streamID(tour), expectedVersion: .any)
            try await h.discovery.catchUp()
            let republished = try #require(try await h.catalog.tour(tour))
            #expect(republished.rating == TourRating(count: 2, sum: 7) && republished.details.title == "Krems again")
            try await h.discovery.rebuild()
            #expect(try await h.catalog.tour(tour) == republished, "rebuild = live")
        }
    }
}
