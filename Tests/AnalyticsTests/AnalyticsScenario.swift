@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceTesting

/// Published events as the topics deliver them: per source, gapless positions, per-stream versions.
struct EventLog: Sendable {
    private(set) var events: [PublishedEvent] = []
    private var positions: [String: Int64] = [:]
    private var versions: [String: Int64] = [:]

    @discardableResult
    mutating func add<E: IntegrationEvent>(_ payload: E, stream: String, source: String? = nil) -> PublishedEvent {
        add(type: E.eventType, schemaVersion: E.schemaVersion, payload: try! EventJSON.encode(payload), stream: stream,
            source: source ?? E.topic.producingService!)
    }

    @discardableResult
    mutating func add(type: String, schemaVersion: Int = 1, payload: Data, stream: String, source: String) -> PublishedEvent {
        positions[source, default: 0] += 1
        versions["\(source)/\(stream)", default: 0] += 1
        let envelope = EventEnvelope(eventID: .v7(), streamID: stream, streamVersion: versions["\(source)/\(stream)"]!,
                                     position: positions[source]!, eventType: type, schemaVersion: schemaVersion, payload: payload,
                                     metadata: EventMetadata(), recordedAt: Scenario.t0)
        let event = PublishedEvent(envelope, source: source)
        events.append(event)
        return event
    }

    func from(_ source: String) -> [PublishedEvent] { events.filter { $0.source == source } }
}

/// A small marketplace: two guides, three tours in two currencies and two destinations, three signed-in travellers and
/// two anonymous clients, over February and March 2026 — every event type analytics applies, some it ignores, and an
/// unknown one. The expected figures are worked out by hand in `AnalyticsProjectionTests`.
enum Scenario {
    static let t0 = date("2026-02-01T08:00:00Z")
    static let g1 = "11111111-1111-4111-8111-111111111111", g2 = "22222222-2222-4222-8222-222222222222"
    static let u1 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa1", u2 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa2"
    static let u3 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa3"
    static let t1 = "77777777-7777-4777-8777-777777777771", t2 = "77777777-7777-4777-8777-777777777772"
    static let t3 = "77777777-7777-4777-8777-777777777773"
    static let krems: Int64 = 2_773_300, vienna: Int64 = 2_761_369
    /// The summary range used by the tests: February and March 2026.
    static let range = AnalyticsRange(from: UTCDay(iso: "2026-02-01")!, to: UTCDay(iso: "2026-03-31")!)

    static func date(_ text: String) -> Date { RFC3339Timestamp.date(from: text)! }
    static func id(_ text: String) -> UUID { UUID(uuidString: text)! }
    static func sealed(_ id: String) -> SealedPersonalData { SealedPersonalData(subject: id, sealed: "AAECAwQFBgcICQoLc2VhbGVk") }
    static func eur(_ minor: Int64) -> Money { Money(amountMinor: minor, currency: .eur) }
    static func usd(_ minor: Int64) -> Money { Money(amountMinor: minor, currency: CurrencyCode("USD")!) }

    static func details(_ title: String, destination: Int64, price: Money) -> TourDetails {
        TourDetails(title: title, description: "A walk.", destinationId: destination, themes: [.history], languages: ["en"], price: price,
                    estimatedMinutes: 60, difficulty: .easy, mode: .walk)
    }

    /// The registrations on `waypoint.auth`.
    static func auth(_ log: inout EventLog) {
        func register(_ user: String, _ role: UserRole, _ at: String) {
            log.add(UserRegistered(userId: id(user), username: sealed(user), email: sealed(user), role: role, licenceNumber: nil,
                                   method: .password, registeredAt: date(at)), stream: "user-\(user)")
        }
        register(g1, .guide, "2026-02-01T08:00:00Z")
        register(g2, .guide, "2026-02-01T09:00:00Z")
        register(u1, .traveller, "2026-02-02T10:00:00Z")
        register(u2, .traveller, "2026-02-02T23:59:59Z")
        register(u3, .traveller, "2026-02-03T00:00:00Z")
        log.add(SessionStarted(sessionId: UUID(), userId: id(u1), method: .password, startedAt: date("2026-02-02T10:00:00Z"),
                               expiresAt: date("2026-03-02T10:00:00Z")), stream: "session-\(UUID().uuidString.lowercased())")
        log.add(RoleGranted(userId: id(g1), role: .moderator, grantedBy: nil, grantedAt: date("2026-02-04T00:00:00Z")), stream: "user-\(g1)")
    }

    /// The marketplace on `waypoint.tours`.
    static func tours(_ log: inout EventLog) {
        log.add(TourPublished(tourId: id(t1), guideId: id(g1), revision: 1, details: details("Krems old town", destination: krems, price: eur(1000)),
                              stops: [], lengthMetres: 1200, publishedAt: date("2026-02-05T09:00:00Z")), stream: "tour-\(t1)")
        log.add(TourPublished(tourId: id(t2), guideId: id(g1), revision: 1, details: details("Vienna by night", destination: vienna, price: usd(1500)),
                              stops: [], lengthMetres: 3000, publishedAt: date("2026-02-06T09:00:00Z")), stream: "tour-\(t2)")
        log.add(TourPublished(tourId: id(t3), guideId: id(g2), revision: 1, details: details("Wachau wine", destination: krems, price: eur(0)),
                              stops: [], lengthMetres: 5000, publishedAt: date("2026-02-07T09:00:00Z")), stream: "tour-\(t3)")
        func view(_ tour: String, _ guide: String, _ viewer: String, _ at: String) {
            let user = viewer.hasPrefix("user:") ? id(String(viewer.dropFirst(5))) : nil
            log.add(TourViewed(tourId: id(tour), guideId: id(guide), viewer: viewer, userId: user, viewedAt: date(at)), stream: "views-\(tour)")
        }
        view(t1, g1, "user:\(u1)", "2026-02-10T10:00:00Z")
        view(t1, g1, "user:\(u1)", "2026-02-10T12:00:00Z")
        view(t1, g1, "client:c1hash", "2026-02-10T13:00:00Z")
        view(t1, g1, "user:\(u2)", "2026-03-02T08:00:00Z")
        view(t1, g1, "user:\(u1)", "2026-03-03T08:00:00Z")
        view(t2, g1, "user:\(u1)", "2026-03-03T09:00:00Z")
        view(t3, g2, "user:\(u3)", "2026-03-04T09:00:00Z")
        view(t3, g2, "client:c2hash", "2026-03-04T10:00:00Z")

        func started(_ tour: String, _ user: String, _ guide: String, _ price: Money, _ at: String) {
            log.add(PurchaseStarted(purchaseId: UUID(), tourId: id(tour), userId: id(user), guideId: id(guide), revision: 1, price: price,
                                    platformFee: Money(amountMinor: price.amountMinor / 5, currency: price.currency),
                                    guideEarnings: Money(amountMinor: price.amountMinor - price.amountMinor / 5, currency: price.currency),
                                    feeBasisPoints: 2000, provider: "sandbox", providerReference: "ref", startedAt: date(at)),
                    stream: "access-\(tour)-\(user)")
        }
        func completed(_ tour: String, _ user: String, _ guide: String, _ price: Money, _ at: String) {
            log.add(PurchaseCompleted(purchaseId: UUID(), tourId: id(tour), userId: id(user), guideId: id(guide), revision: 1, price: price,
                                      platformFee: Money(amountMinor: price.amountMinor / 5, currency: price.currency),
                                      guideEarnings: Money(amountMinor: price.amountMinor - price.amountMinor / 5, currency: price.currency),
                                      providerPaymentId: "pay", completedAt: date(at)), stream: "access-\(tour)-\(user)")
        }
        started(t1, u1, g1, eur(1000), "2026-02-10T12:05:00Z")
        completed(t1, u1, g1, eur(1000), "2026-02-10T12:06:00Z")
        started(t1, u2, g1, eur(1000), "2026-03-02T08:01:00Z")
        log.add(PurchaseFailed(purchaseId: UUID(), tourId: id(t1), userId: id(u2), reason: "card_declined", failedAt: date("2026-03-02T08:02:00Z")),
                stream: "access-\(t1)-\(u2)")
        started(t1, u2, g1, eur(1000), "2026-03-02T08:03:00Z")
        completed(t1, u2, g1, eur(1000), "2026-03-02T08:04:00Z")
        log.add(PurchaseRefunded(purchaseId: UUID(), tourId: id(t1), userId: id(u2), guideId: id(g1), amount: eur(1000), platformFee: eur(200),
                                 guideEarnings: eur(800), refundedAt: date("2026-03-05T08:00:00Z")), stream: "access-\(t1)-\(u2)")
        started(t2, u1, g1, usd(1500), "2026-03-03T09:01:00Z")
        completed(t2, u1, g1, usd(1500), "2026-03-03T09:02:00Z")
        log.add(TourAcquired(tourId: id(t3), userId: id(u3), guideId: id(g2), revision: 1, acquiredAt: date("2026-03-04T09:05:00Z")),
                stream: "access-\(t3)-\(u3)")

        log.add(ReviewPosted(reviewId: UUID(), tourId: id(t1), userId: id(u1), guideId: id(g1), rating: 4, text: sealed(u1),
                             postedAt: date("2026-02-11T08:00:00Z")), stream: "review-\(t1)-\(u1)")
        log.add(ReviewEdited(reviewId: UUID(), tourId: id(t1), userId: id(u1), guideId: id(g1), previousRating: 4, rating: 5, text: nil,
                             editedAt: date("2026-03-01T08:00:00Z")), stream: "review-\(t1)-\(u1)")
        log.add(ReviewPosted(reviewId: UUID(), tourId: id(t1), userId: id(u2), guideId: id(g1), rating: 2, text: nil,
                             postedAt: date("2026-03-02T09:00:00Z")), stream: "review-\(t1)-\(u2)")
        log.add(ReviewHidden(reviewId: UUID(), tourId: id(t1), userId: id(u2), guideId: id(g1), rating: 2, hiddenBy: UUID(), reason: "moderation",
                             hiddenAt: date("2026-03-06T09:00:00Z")), stream: "review-\(t1)-\(u2)")
        log.add(ReviewReplied(reviewId: UUID(), tourId: id(t1), guideId: id(g1), reply: sealed(g1), repliedAt: date("2026-03-07T09:00:00Z")),
                stream: "review-\(t1)-\(u1)")
        log.add(ReviewPosted(reviewId: UUID(), tourId: id(t3), userId: id(u3), guideId: id(g2), rating: 3, text: nil,
                             postedAt: date("2026-03-05T09:00:00Z")), stream: "review-\(t3)-\(u3)")

        log.add(TourStarted(tourId: id(t1), userId: id(u1), guideId: id(g1), revision: 1, startedAt: date("2026-02-12T09:00:00Z")),
                stream: "progress-\(t1)-\(u1)")
        log.add(StopCompleted(tourId: id(t1), userId: id(u1), stopId: UUID(), completedAt: date("2026-02-12T09:30:00Z"),
                              recordedAt: date("2026-02-12T09:30:00Z")), stream: "progress-\(t1)-\(u1)")
        log.add(TourCompleted(tourId: id(t1), userId: id(u1), guideId: id(g1), revision: 1, completedAt: date("2026-02-12T10:00:00Z")),
                stream: "progress-\(t1)-\(u1)")
        log.add(TourStarted(tourId: id(t2), userId: id(u1), guideId: id(g1), revision: 1, startedAt: date("2026-03-04T20:00:00Z")),
                stream: "progress-\(t2)-\(u1)")
        log.add(TourStarted(tourId: id(t3), userId: id(u3), guideId: id(g2), revision: 1, startedAt: date("2026-03-05T09:00:00Z")),
                stream: "progress-\(t3)-\(u3)")
        log.add(TourCompleted(tourId: id(t3), userId: id(u3), guideId: id(g2), revision: 1, completedAt: date("2026-03-05T11:00:00Z")),
                stream: "progress-\(t3)-\(u3)")
        log.add(TourFavourited(tourId: id(t1), userId: id(u3), favouritedAt: date("2026-03-05T12:00:00Z")), stream: "favourites-\(u3)")
        log.add(BundlePublished(tourId: id(t1), revision: 1, version: 1, sha256: String(repeating: "a", count: 64), sizeBytes: 10,
                                createdAt: date("2026-02-05T09:00:01Z"), expiresAt: date("2026-03-07T09:00:01Z")), stream: "bundle-\(t1)")
        log.add(TourUnpublished(tourId: id(t2), unpublishedAt: date("2026-03-10T09:00:00Z")), stream: "tour-\(t2)")
        // A type from the future: ignored (tolerant reader).
        log.add(type: "TourTeleported", payload: Data(#"{"tourId":"\#(t1)","to":"mars"}"#.utf8), stream: "tour-\(t1)",
                source: "tour-management")
    }

    /// Every event of the scenario, auth first.
    static var events: EventLog {
        var log = EventLog()
        auth(&log)
        tours(&log)
        return log
    }

    /// Erasure of traveller U1 and guide G2 (on `waypoint.auth`, after the scenario's auth events).
    static func erasures(_ log: inout EventLog) {
        log.add(UserErased(userId: id(u1), erasedAt: date("2026-03-20T00:00:00Z")), stream: "user-\(u1)")
        log.add(UserErased(userId: id(g2), erasedAt: date("2026-03-20T00:00:01Z")), stream: "user-\(g2)")
    }
}

/// Analytics storage on a test backend, and applying events as the consumers do.
enum AnalyticsHarness {
    static var quiet: Logger {
        var logger = Logger(label: "test.analytics")
        logger.logLevel = .warning
        return logger
    }

    static func withStorage<T: Sendable>(_ backend: TestBackend, _ body: @Sendable (ServiceStorage) async throws -> T) async throws -> T {
        try await backend.withServiceStorage("analytics", logger: quiet) { storage in
            _ = try await AnalyticsDatabase(storage).prepareLive()
            return try await body(storage)
        }
    }

    /// Applies `events` through the live consumer targets of their topics (one batch per topic), as a transport delivers
    /// them; returns how many were applied (redeliveries are not).
    @discardableResult
    static func deliver(_ events: [PublishedEvent], to storage: ServiceStorage) async throws -> Int {
        let generation = try await AnalyticsDatabase(storage).liveGeneration()
        var applied = 0
        var batches: [(Topic, [PublishedEvent])] = []
        for event in events {
            let topic = Topic(producingService: event.source)!
            if let last = batches.last, last.0 == topic {
                batches[batches.count - 1].1.append(event)
            } else {
                batches.append((topic, [event]))
            }
        }
        for (topic, batch) in batches {
            let target = AnalyticsConsumers.target(storage: storage, name: AnalyticsConsumerName.live(topic),
                                                   tables: ProjectionTables(generation: generation, isRebuild: false))
            _ = try await target.prepare()
            applied += try await target.apply(batch)
        }
        return applied
    }

    /// Every row of every analytics table, as sorted text lines: two databases hold the same read model iff their dumps
    /// are equal.
    static func dump(_ storage: ServiceStorage) async throws -> [String: [String]] {
        let database = AnalyticsDatabase(storage)
        let results = try await database.fetch(AnalyticsSchema.tables.map { AnalyticsQuery("SELECT * FROM \($0)") })
        var dump: [String: [String]] = [:]
        for (table, rows) in zip(AnalyticsSchema.tables, results) {
            dump[table] = rows.map { row in
                row.cells.map { cell in
                    switch cell {
                    case .int(let value): value.map(String.init) ?? "∅"
                    case .text(let value): value ?? "∅"
                    }
                }.joined(separator: "|")
            }.sorted()
        }
        return dump
    }

    /// What the API answers for the scenario's guides, tours and platform.
    struct Figures: Equatable, Sendable {
        var g1: GuideSummary
        var g2: GuideSummary
        var t1: TourAnalytics?
        var platform: PlatformFigures
        var views: [AnalyticsQueries.ViewsPoint]
        var earnings: [MonthEarnings]
    }

    static func figures(_ storage: ServiceStorage, range: AnalyticsRange = Scenario.range) async throws -> Figures {
        let queries = AnalyticsQueries(database: AnalyticsDatabase(storage))
        return Figures(g1: try await queries.guideSummary(guideId: Scenario.g1, range: range),
                       g2: try await queries.guideSummary(guideId: Scenario.g2, range: range),
                       t1: try await queries.tour(Scenario.t1, range: range), platform: try await queries.platform(range: range),
                       views: try await queries.views(guideId: Scenario.g1, range: range, bucket: .week),
                       earnings: try await queries.earningsByMonth(guideId: Scenario.g1, range: range))
    }
}
