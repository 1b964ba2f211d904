import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceKit

/// A review as people see it: text and reply opened (absent when there is none or their writer was erased).
public struct ReviewView: Sendable, Hashable {
    public struct Reply: Sendable, Hashable {
        /// `nil` when the guide's account was erased.
        public var text: String?
        public var repliedAt: Date
    }

    public var reviewId: UUID
    public var tourId: UUID
    public var authorId: UUID
    public var guideId: UUID
    public var rating: Int
    public var text: String?
    public var postedAt: Date
    public var editedAt: Date?
    public var reply: Reply?
    public var hidden: Bool
}

/// A reported review waiting for a moderator.
public struct ModerationItem: Sendable, Hashable {
    public var review: ReviewView
    public var reports: Int
    /// Reports per reason (``ReviewReportReason`` raw values).
    public var reasons: [String: Int]
    public var firstReportedAt: Date?
    public var lastReportedAt: Date?
}

/// One page of a tour's reviews with the tour's ratings.
public struct ReviewPage: Sendable, Hashable {
    public var ratings: ReviewRatings
    public var reviews: [ReviewView]
    public var nextCursor: PageCursor?
}

/// Review commands over the log (load the review stream, decide, append at the loaded version) and the reads that open
/// sealed text. Entitlement is read from the `entitlements` read model; one review per traveller per tour is decided on
/// the stream `review-<tourId>-<userId>`.
public struct ReviewCommands: Sendable {
    let repository: AggregateRepository<ReviewAggregate, AnyEventStore>
    let texts: PersonalTexts
    let entitlements: Entitlements
    public let catalog: ReviewCatalog
    let checkpoints: any CheckpointStore
    let readModelTimeout: Duration
    public let now: @Sendable () -> Date

    /// - Parameter readModelTimeout: how long ``eraseAuthor(_:)`` waits for the `reviews` read model to reach the log's
    ///   head before it gives up (and throws, so the caller retries).
    public init(store: AnyEventStore, keys: any PersonalDataKeyStore, entitlements: Entitlements, catalog: ReviewCatalog,
                checkpoints: any CheckpointStore, readModelTimeout: Duration = .seconds(10), now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store)
        texts = PersonalTexts(keys: keys)
        self.entitlements = entitlements
        self.catalog = catalog
        self.checkpoints = checkpoints
        self.readModelTimeout = readModelTimeout
        self.now = now
    }

    /// Over a service's storage (its log, key store, checkpoints and read models) and its stores (the `reviews` read model's).
    public init(storage: ServiceStorage, stores: TourManagementStores, readModelTimeout: Duration = .seconds(10),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.init(store: AnyEventStore(storage.store), keys: storage.personalDataKeys,
                  entitlements: Entitlements(store: stores.entitlements),
                  catalog: ReviewCatalog(store: stores.reviewReads),
                  checkpoints: storage.checkpoints,
                  readModelTimeout: readModelTimeout, now: now)
    }

    // MARK: Commands

    /// A traveller who owns `tourId` rates it (1–5, optional text). 422 bad rating or text, 403 `not-entitled`,
    /// 403 `own-tour` (the guide), 403 `account-erased`, 409 `review-exists`.
    public func post(tourId: UUID, author: UUID, rating: Int, text: String?, metadata: EventMetadata = .init()) async throws -> ReviewView {
        let cleaned = try Self.validate(rating: rating, text: text)
        let entitlement = try await requireEntitlement(tour: tourId, user: author)
        let sealed = try await texts.seal(cleaned, for: author)
        let state = try await run(.post(reviewId: .v7(), tourId: tourId, userId: author, guideId: entitlement.guideId, rating: rating,
                                        text: sealed, at: now()), tour: tourId, user: author, metadata: metadata, retries: 0)
        return try Self.view(state, text: cleaned, reply: nil)
    }

    /// The author replaces rating and text of their review. 404 `unknown-review` without one, 409 `review-hidden`.
    public func edit(tourId: UUID, author: UUID, rating: Int, text: String?, metadata: EventMetadata = .init()) async throws -> ReviewView {
        let cleaned = try Self.validate(rating: rating, text: text)
        _ = try await requireEntitlement(tour: tourId, user: author)
        let sealed = try await texts.seal(cleaned, for: author)
        let state = try await run(.edit(rating: rating, text: sealed, at: now()), tour: tourId, user: author, metadata: metadata)
        return try Self.view(state, text: cleaned, reply: await texts.open(state.reply))
    }

    /// The tour's guide answers a review, once. 404 `unknown-review`, 403 `not-tour-owner`, 409 `already-replied`.
    public func reply(tourId: UUID, reviewId: UUID, guide: UUID, text: String, metadata: EventMetadata = .init()) async throws -> ReviewView {
        var validator = Validator()
        let cleaned = ReviewText.validated(text, field: "text", required: true, into: &validator)
        try validator.check()
        let row = try await row(reviewId, tour: tourId)
        guard row.guideId == guide else { throw ReviewError.notTourGuide }
        guard let sealed = try await texts.seal(cleaned, for: guide) else { throw ReviewError.notFound }
        let state = try await run(.reply(reviewId: reviewId, guideId: guide, reply: sealed, at: now()), tour: row.tourId, user: row.userId,
                                  metadata: metadata)
        return try await view(state, replyText: cleaned)
    }

    /// Anyone signed in reports a review, once. 404 `unknown-review`, 409 `already-reported`, 409 `review-hidden`.
    @discardableResult
    public func report(reviewId: UUID, reporter: UUID, reason: ReviewReportReason, metadata: EventMetadata = .init()) async throws -> Date {
        guard let row = try await catalog.review(reviewId) else { throw ReviewError.notFound }
        let at = now()
        _ = try await run(.report(reviewId: reviewId, reporterId: reporter, reason: reason, at: at), tour: row.tourId, user: row.userId,
                          metadata: metadata)
        return at
    }

    /// A moderator hides a review for good (idempotent). 404 `unknown-review`.
    public func hide(reviewId: UUID, moderator: UUID, metadata: EventMetadata = .init()) async throws -> ReviewView {
        guard let row = try await catalog.review(reviewId) else { throw ReviewError.notFound }
        let state = try await run(.hide(reviewId: reviewId, by: moderator, reason: ReviewEvents.hiddenByModeration, at: now()),
                                  tour: row.tourId, user: row.userId, metadata: metadata)
        return try await view(state)
    }

    /// The author's account was erased (`UserErased` on `waypoint.auth`): destroys their key — every text and reply they
    /// wrote becomes unreadable at once, everywhere — then hides each of their visible reviews
    /// (`ReviewHidden(reason: "author-erased")`), so their ratings stop counting. Idempotent: call it again after a
    /// failure or on redelivery. It first waits (up to `readModelTimeout`) for the `reviews` read model to reach the
    /// log's head, so a review appended just before is not missed.
    public func eraseAuthor(_ userId: UUID) async throws {
        try await texts.erase(userId)
        let head = try await repository.store.headPosition()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: readModelTimeout)
        while try await checkpoints.position(of: SQLiteReviewsProjection().checkpointName) < head {
            guard clock.now < deadline else { throw ReviewErasureTimeout(userId: userId, head: head) }
            try await Task.sleep(for: .milliseconds(20))
        }
        for row in try await catalog.reviews(by: userId) where !row.hidden {
            _ = try await run(.hide(reviewId: row.reviewId, by: nil, reason: ReviewEvents.hiddenAuthorErased, at: now()), tour: row.tourId,
                              user: row.userId, metadata: EventMetadata(actorID: "system"), retries: 3)
        }
    }

    // MARK: Reads

    /// The caller's own review of `tourId` (also when hidden), from its stream: it shows an edit at once.
    public func myReview(tourId: UUID, author: UUID) async throws -> ReviewView? {
        let state = try await repository.load(ReviewEvents.streamID(tour: tourId, user: author)).state
        guard state.exists else { return nil }
        return try await view(state)
    }

    /// A page of a tour's visible reviews, newest first, with its ratings.
    public func list(tourId: UUID, cursor: PageCursor?, limit: Int) async throws -> ReviewPage {
        async let ratings = catalog.ratings(tour: tourId)
        let (rows, next) = try await catalog.page(tour: tourId, after: cursor, limit: limit)
        var views: [ReviewView] = []
        for row in rows { views.append(await view(row)) }
        return ReviewPage(ratings: try await ratings, reviews: views, nextCursor: next)
    }

    /// A page of the moderation queue.
    public func moderationQueue(cursor: PageCursor?, limit: Int) async throws -> (items: [ModerationItem], next: PageCursor?) {
        let (rows, next) = try await catalog.moderationQueue(after: cursor, limit: limit)
        var items: [ModerationItem] = []
        for row in rows {
            items.append(ModerationItem(review: await view(row), reports: row.reports, reasons: row.reportReasons,
                                        firstReportedAt: row.firstReportedAt, lastReportedAt: row.lastReportedAt))
        }
        return (items, next)
    }

    // MARK: Helpers

    /// 422 unless the rating is 1–5 and the text (cleaned) at most 2,000 characters; the cleaned text.
    static func validate(rating: Int, text: String?) throws -> String? {
        var validator = Validator()
        validator.range(rating, field: "rating", ReviewAggregate.ratings)
        let cleaned = ReviewText.validated(text, field: "text", into: &validator)
        try validator.check()
        return cleaned
    }

    private func requireEntitlement(tour: UUID, user: UUID) async throws -> Entitlement {
        guard let entitlement = try await entitlements.entitlement(tour: tour, user: user), entitlement.isActive else {
            throw ReviewError.notEntitled
        }
        guard entitlement.guideId != user else { throw ReviewError.ownTour }
        return entitlement
    }

    private func row(_ reviewId: UUID, tour: UUID) async throws -> ReviewRow {
        guard let row = try await catalog.review(reviewId), row.tourId == tour else { throw ReviewError.notFound }
        return row
    }

    private func run(_ command: ReviewCommand, tour: UUID, user: UUID, metadata: EventMetadata, retries: Int = 2) async throws -> ReviewState {
        do {
            return try await repository.execute(command, on: ReviewEvents.streamID(tour: tour, user: user), metadata: metadata,
                                                retries: retries).state
        } catch EventStoreError.wrongExpectedVersion {
            if case .post = command { throw ReviewError.alreadyPosted }
            throw ReviewError.concurrentChange
        }
    }

    static func view(_ s: ReviewState, text: String?, reply: String?) throws -> ReviewView {
        guard let id = s.reviewId, let tour = s.tourId, let user = s.userId, let guide = s.guideId, let postedAt = s.postedAt else {
            throw ReviewError.notFound
        }
        return ReviewView(reviewId: id, tourId: tour, authorId: user, guideId: guide, rating: s.rating, text: text, postedAt: postedAt,
                          editedAt: s.editedAt, reply: s.repliedAt.map { ReviewView.Reply(text: reply, repliedAt: $0) }, hidden: s.hidden)
    }

    private func view(_ s: ReviewState, replyText: String? = nil) async throws -> ReviewView {
        let reply: String? = if let replyText { replyText } else { await texts.open(s.reply) }
        return try Self.view(s, text: await texts.open(s.text), reply: reply)
    }

    private func view(_ row: ReviewRow) async -> ReviewView {
        let text = await texts.open(row.text), reply = await texts.open(row.reply)
        return ReviewView(reviewId: row.reviewId, tourId: row.tourId, authorId: row.userId, guideId: row.guideId, rating: row.rating,
                          text: text, postedAt: row.postedAt, editedAt: row.editedAt,
                          reply: row.repliedAt.map { ReviewView.Reply(text: reply, repliedAt: $0) }, hidden: row.hidden)
    }
}

/// ``ReviewCommands/eraseAuthor(_:)`` gave up waiting for the `reviews` read model (stopped, or far behind).
public struct ReviewErasureTimeout: Error, Sendable, CustomStringConvertible {
    public var userId: UUID
    public var head: Int64
    public var description: String {
        "the reviews read model did not reach position \(head) in time to hide the reviews of erased user \(userId.uuidString.lowercased())"
    }
}
