import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceLifecycle
import ServiceTesting
import Testing
import TourManagement

/// The producer side of the push stream: which events of tour-management's log notify whom, exactly once.
@Suite("tour-management: user notifications")
struct NotificationTests {
    static let at = Date(timeIntervalSince1970: 1_795_341_600)
    static let tour = UUID(uuidString: "3f7b8a10-5c2e-4d91-9a6b-1e2f3a4b5c01")!
    static let guide = UUID(uuidString: "0b8f3a52-4a7e-4c55-9d55-6f1f2f6b1a01")!
    static let buyer = UUID(uuidString: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e01")!
    static let author = UUID(uuidString: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e03")!
    static let purchase = UUID(uuidString: "c0ffee00-1234-4abc-8def-0123456789ab")!
    static let review = UUID(uuidString: "c0ffee00-1234-4abc-8def-0123456789ac")!
    static let price = Money(amountMinor: 1_299, currency: .eur)
    static let fee = Money(amountMinor: 260, currency: .eur)
    static let earnings = Money(amountMinor: 1_039, currency: .eur)

    /// Opens a fresh store on `backend` and runs `body` with it.
    static func withStorage(_ backend: TestBackend, _ body: @Sendable (ServiceStorage) async throws -> Void) async throws {
        try await backend.withServiceStorage("tour-management", logger: MediaTestSupport.quiet, body)
    }

    /// Appends one of each trigger (and events that notify nobody); returns the trigger events' ids by kind.
    static func appendTriggers(_ store: AnyEventStore) async throws -> [NotificationKind: UUID] {
        let access = "access-\(tour.uuidString.lowercased())-\(buyer.uuidString.lowercased())"
        let reviewStream = ReviewEvents.streamID(tour: tour, user: author)
        let started = PurchaseStarted(purchaseId: purchase, tourId: tour, userId: buyer, guideId: guide, revision: 1, price: price,
                                      platformFee: fee, guideEarnings: earnings, feeBasisPoints: 2_000, provider: "sandbox",
                                      providerReference: "sbx", startedAt: at)
        let completed = try PurchaseCompleted(purchaseId: purchase, tourId: tour, userId: buyer, guideId: guide, revision: 1, price: price,
                                              platformFee: fee, guideEarnings: earnings, providerPaymentId: "sbx_pi", completedAt: at).newEvent()
        let refunded = try PurchaseRefunded(purchaseId: purchase, tourId: tour, userId: buyer, guideId: guide, amount: price,
                                            platformFee: fee, guideEarnings: earnings, refundedAt: at.addingTimeInterval(60)).newEvent()
        _ = try await store.append([try started.newEvent(), completed, refunded], to: access, expectedVersion: .any)
        let posted = ReviewPosted(reviewId: review, tourId: tour, userId: author, guideId: guide, rating: 2, text: nil, postedAt: at)
        let replied = try ReviewReplied(reviewId: review, tourId: tour, guideId: guide,
                                        reply: SealedPersonalData(subject: guide.uuidString.lowercased(), sealed: "c2VhbGVk"),
                                        repliedAt: at.addingTimeInterval(120)).newEvent()
        let hidden = try ReviewHidden(reviewId: review, tourId: tour, userId: author, guideId: guide, rating: 2, hiddenBy: .v4(),
                                      reason: ReviewEvents.hiddenByModeration, hiddenAt: at.addingTimeInterval(180)).newEvent()
        _ = try await store.append([try posted.newEvent(), replied, hidden], to: reviewStream, expectedVersion: .any)
        // Hidden because its author was erased: nobody to tell.
        let erasedStream = ReviewEvents.streamID(tour: tour, user: buyer)
        _ = try await store.append(
            [try ReviewPosted(reviewId: .v4(), tourId: tour, userId: buyer, guideId: guide, rating: 5, text: nil, postedAt: at).newEvent(),
             try ReviewHidden(reviewId: .v4(), tourId: tour, userId: buyer, guideId: guide, rating: 5, hiddenBy: nil,
                              reason: ReviewEvents.hiddenAuthorErased, hiddenAt: at).newEvent()],
            to: erasedStream, expectedVersion: .any)
        return [.purchaseConfirmed: completed.eventID, .purchaseRefunded: refunded.eventID, .reviewReplied: replied.eventID,
                .reviewHidden: hidden.eventID]
    }

    static func notifications(of user: UUID, in store: AnyEventStore) async throws -> [UserNotified] {
        try await store.readStream(UserNotificationRules.streamID(user: user)).map { try $0.decode(UserNotified.self) }
    }

    @Test("each trigger notifies its recipient exactly once, with an id derived from the trigger", arguments: TestBackend.enabled)
    func eachTriggerOnce(backend: TestBackend) async throws {
        try await Self.withStorage(backend) { storage in
            let store = AnyEventStore(storage.store)
            let sources = try await Self.appendTriggers(store)
            let notifier = UserNotifier(store: store, checkpoints: storage.checkpoints, rules: UserNotificationRules.notification(for:), logger: MediaTestSupport.quiet)
            try await notifier.catchUp()

            let buyer = try await Self.notifications(of: Self.buyer, in: store)
            #expect(buyer.map(\.kind) == [.purchaseConfirmed, .purchaseRefunded])
            #expect(buyer[0].body.contains("12.99 EUR"))
            #expect(buyer[0].data == ["tourId": Self.tour.uuidString.lowercased(), "purchaseId": Self.purchase.uuidString.lowercased()])
            #expect(buyer[0].occurredAt == Self.at)
            let author = try await Self.notifications(of: Self.author, in: store)
            #expect(author.map(\.kind) == [.reviewReplied, .reviewHidden])
            #expect(author.allSatisfy { $0.userId == Self.author && $0.data["reviewId"] == Self.review.uuidString.lowercased() })
            for notification in buyer + author {
                #expect(notification.notificationId == UserNotificationRules.notificationID(for: sources[notification.kind]!))
            }
            // The event id is the notification id, so every hop (Kafka header, feed, SSE id) carries the same one.
            let stored = try await store.readStream(UserNotificationRules.streamID(user: Self.buyer))
            #expect(stored.map(\.eventID) == buyer.map(\.notificationId))
            #expect(stored.allSatisfy { $0.eventType == "UserNotified" && $0.schemaVersion == 1 })
        }
    }

    @Test("reacting again from the start — a crash before the checkpoint, a restart — notifies nobody twice",
          arguments: TestBackend.enabled)
    func replayDoesNotDuplicate(backend: TestBackend) async throws {
        try await Self.withStorage(backend) { storage in
            let store = AnyEventStore(storage.store)
            _ = try await Self.appendTriggers(store)
            let notifier = UserNotifier(store: store, checkpoints: storage.checkpoints, rules: UserNotificationRules.notification(for:), logger: MediaTestSupport.quiet)
            try await notifier.catchUp()
            let head = try await store.headPosition()
            try await notifier.catchUp()  // a restart: from the checkpoint, nothing new
            // A crash between append and checkpoint: the whole log is reacted to again.
            let forgetful = UserNotifier(store: store, checkpoints: ForgetfulCheckpoints(), rules: UserNotificationRules.notification(for:), logger: MediaTestSupport.quiet)
            try await forgetful.catchUp()
            try await forgetful.catchUp()
            #expect(try await store.headPosition() == head)
            #expect(try await Self.notifications(of: Self.buyer, in: store).count == 2)
            #expect(try await Self.notifications(of: Self.author, in: store).count == 2)
        }
    }

    @Test("notifications are not triggers: the notifier never reacts to its own events")
    func ownEventsNotifyNobody() throws {
        let notification = UserNotified(notificationId: .v4(), userId: Self.buyer, kind: .purchaseConfirmed, title: "t", body: "b",
                                        data: [:], occurredAt: Self.at)
        let event = EventEnvelope(eventID: notification.notificationId, streamID: UserNotificationRules.streamID(user: Self.buyer),
                                  streamVersion: 1, position: 1, eventType: UserNotified.eventType, schemaVersion: 1,
                                  payload: try EventJSON.encode(notification), metadata: EventMetadata(), recordedAt: Self.at)
        #expect(try UserNotificationRules.notification(for: event) == nil)
    }

    @Test("a trigger that cannot be read stops the notifier (status failed), it is never skipped")
    func poisonStops() async throws {
        try await Self.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            try await store.append(NewEvent(eventType: PurchaseCompleted.eventType, payload: Data(#"{"purchaseId":"nope"}"#.utf8)),
                                   to: "access-x", expectedVersion: .any)
            let notifier = UserNotifier(store: store, checkpoints: storage.checkpoints, rules: UserNotificationRules.notification(for:), logger: MediaTestSupport.quiet)
            await #expect(throws: (any Error).self) { try await notifier.catchUp() }
            guard case .failed(_, let eventPosition, _) = notifier.status else {
                Issue.record("expected failed, got \(notifier.status)")
                return
            }
            #expect(eventPosition == 1)
            #expect(try await storage.checkpoints.position(of: UserNotifier.checkpointName) == 0)
        }
    }

    /// A notifier running live over a fresh SQLite store while `body` runs, the triggers appended and their two
    /// notifications for the author delivered.
    /// `typed`: with the service's trigger types (``UserNotificationRules/notifierTriggers``), as the service runs it;
    /// otherwise over every event.
    static func withLiveNotifier(typed: Bool, _ body: @escaping @Sendable (ServiceStorage, AnyEventStore) async throws -> Void) async throws {
        try await Self.withStorage(.sqlite) { storage in
            let store = AnyEventStore(storage.store)
            let notifier = UserNotifier(store: store, checkpoints: storage.checkpoints, rules: UserNotificationRules.notification(for:),
                                        triggers: typed ? UserNotificationRules.notifierTriggers : nil, logger: MediaTestSupport.quiet)
            let group = ServiceGroup(configuration: .init(services: [notifier], logger: MediaTestSupport.quiet))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                _ = try await Self.appendTriggers(store)
                try await eventually { try await Self.notifications(of: Self.author, in: store).count >= 2 }
                try await body(storage, store)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("running live, a purchase appended now is notified within moments (reading every event, or the trigger types only)", arguments: [false, true])
    func live(typed: Bool) async throws {
        try await Self.withLiveNotifier(typed: typed) { _, store in
            let notified = try await Self.notifications(of: Self.author, in: store)
            #expect(notified.count == 2)
        }
    }

    @Test("running live, the checkpoint moves with every batch that notified, and at least once a second over events that notify nobody",
          arguments: [false, true])
    func liveCheckpoint(typed: Bool) async throws {
        try await Self.withLiveNotifier(typed: typed) { storage, store in
            // Notifications and their triggers: the checkpoint is saved at or after the last trigger's batch.
            try await eventually { try await storage.checkpoints.position(of: UserNotifier.checkpointName) > 0 }
            // Events that notify nobody: the checkpoint still reaches the head within a second or two.
            for index in 0..<20 {
                try await store.append(NewEvent(eventType: "SomethingQuiet", payload: Data(#"{"n":\#(index)}"#.utf8)), to: "quiet-\(index % 3)",
                                       expectedVersion: .any)
                try await Task.sleep(for: .milliseconds(100))
            }
            let head = try await store.headPosition()
            try await eventually {
                try await store.append(NewEvent(eventType: "SomethingQuiet", payload: Data("{}".utf8)), to: "quiet-tail", expectedVersion: .any)
                return try await storage.checkpoints.position(of: UserNotifier.checkpointName) >= head
            }
        }
    }

    @Test("what leaves on which topic: the tours relay never sends notifications, the notifications relay only them")
    func routing() throws {
        func envelope(_ type: String) -> EventEnvelope {
            EventEnvelope(eventID: .v4(), streamID: "s", streamVersion: 1, position: 1, eventType: type, schemaVersion: 1,
                          payload: Data("{}".utf8), metadata: EventMetadata(), recordedAt: Self.at)
        }
        let topics = Dictionary(uniqueKeysWithValues: TourManagementEvents.topics.map { ($0.topic, $0.include) })
        #expect(Set(topics.keys) == ["waypoint.tours", "waypoint.notifications"])
        #expect(topics["waypoint.tours"]!(envelope("UserNotified")) == false)
        #expect(topics["waypoint.tours"]!(envelope("PurchaseCompleted")) == true)
        #expect(topics["waypoint.notifications"]!(envelope("UserNotified")) == true)
        #expect(topics["waypoint.notifications"]!(envelope("PurchaseCompleted")) == false)
        #expect(TourManagementEvents.isServedByFeed(envelope("UserNotified")))
        #expect(TourManagementEvents.isServedByFeed(envelope("PurchaseCompleted")))
        #expect(!TourManagementEvents.isServedByFeed(envelope("ReviewReported")))
    }

    @Test("derived ids are RFC 9562 version 5 and stable")
    func derivedIDs() {
        let source = UUID(uuidString: "01890a5d-ac96-774b-bcce-b302099a8057")!
        let id = UserNotificationRules.notificationID(for: source)
        #expect(id == UserNotificationRules.notificationID(for: source))
        #expect(id != UserNotificationRules.notificationID(for: .v4()))
        let text = id.uuidString.lowercased()
        #expect(Array(text)[14] == "5")
        #expect("89ab".contains(Array(text)[19]))
    }
}

/// Checkpoints that never remember: every catch-up starts from the beginning, as after a crash before the checkpoint.
struct ForgetfulCheckpoints: CheckpointStore {
    func position(of name: String) async throws -> Int64 { 0 }
    func save(_ position: Int64, for name: String) async throws {}
}
