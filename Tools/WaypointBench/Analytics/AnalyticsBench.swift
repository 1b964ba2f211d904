import Analytics
import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceTesting

/// What `waypoint-bench analytics` prints.
struct AnalyticsFigures: Encodable, Sendable {
    struct Percentiles: Encodable, Sendable {
        var p50: Double
        var p99: Double
    }

    var events: Int
    var guides: Int
    /// Events applied per second into the analytics projections on SQLite: payload reading, dedupe records, aggregate
    /// upserts, viewer sets and the activity feed, committed in the consumers' batches (`WAYPOINT_ANALYTICS_BATCH_SIZE`,
    /// default 50,000: one transaction each, `synchronous = FULL`).
    var ingest_events_per_s: Int
    /// `GET /v1/analytics/guides/me/summary` as the API computes it (every query and the assembly; no HTTP), default
    /// range (last 30 days), for random guides after the ingest.
    var summary_ms: Percentiles
}

/// Ingests `events` published events for `guides` guides (5 tours each) into a fresh SQLite analytics database through
/// the live consumer targets, then times guide summaries.
///
/// The workload is a year of a marketplace in time order (as topics deliver it): 70 % tour views (40 % by signed-in
/// travellers out of 200,000, the rest anonymous clients), 6 % checkouts started, 5 % purchases completed in EUR, USD
/// or GBP, 0.5 % refunds, 4 % free acquisitions, 2 % reviews, 0.5 % review edits, 5 % tour starts, 3 % completions,
/// 3 % registrations on `waypoint.auth` and 1 % republications. Payloads are written in the published language's exact
/// JSON shape (sorted keys, RFC 3339 times); a sample is checked against the `Contracts` decoders first.
func measureAnalytics(events: Int, guides: Int) async throws -> AnalyticsFigures {
    let logger = Logger(label: "waypoint.bench.analytics")
    let directory = TemporaryDirectory("waypoint-bench-analytics")
    defer { directory.remove() }
    let settings = RuntimeSettings(serviceName: "analytics", dataDirectory: directory.url,
                                   backend: .sqlite(path: directory.url.appendingPathComponent("analytics.sqlite").path))
    let quiet = {
        var logger = Logger(label: "waypoint.bench.analytics.storage")
        logger.logLevel = .warning
        return logger
    }()
    return try await ServiceStorage.withOpen(settings, logger: quiet) { storage in
        let configuration = AnalyticsConfiguration(service: .init(serviceName: "analytics", logLevel: .warning), runtime: settings)
        let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: quiet)
        var workload = AnalyticsWorkload(events: events, guides: guides)
        try workload.selfCheck()
        let targets = AnalyticsBenchTargets(storage: storage, generation: server.generation)
        try await targets.prepare()

        // Ingest: generate a chunk (not timed), apply it in the live consumers' batches (timed).
        let batchSize = configuration.batchSize
        var applied = 0
        var ingestTime = Duration.zero
        let chunk = 50_000
        while workload.produced < events {
            let batch = workload.next(min(chunk, events - workload.produced))
            let start = ContinuousClock.now
            for slice in stride(from: 0, to: batch.count, by: batchSize) {
                applied += try await targets.apply(Array(batch[slice..<min(slice + batchSize, batch.count)]))
            }
            ingestTime += ContinuousClock.now - start
            logger.info("ingested \(workload.produced) of \(events) events (\(Int(Double(applied) / ingestTime.seconds)) events/s)")
        }
        let perSecond = Int((Double(applied) / ingestTime.seconds).rounded())

        // Summaries: default range (the last 30 days up to the workload's end), random guides.
        let queries = server.queries
        let range = AnalyticsRange(from: workload.lastDay.advanced(by: -29), to: workload.lastDay)
        var generator = BenchRandom(seed: 99)
        var samples: [Double] = []
        for round in 0..<1_100 {
            let guide = workload.guideIDs[Int(generator.next() % UInt64(workload.guideIDs.count))]
            let start = ContinuousClock.now
            let summary = try await queries.guideSummary(guideId: guide, range: range)
            let elapsed = ContinuousClock.now - start
            precondition(summary.guideId == guide)
            if round >= 100 { samples.append(elapsed.seconds * 1_000) }  // after 100 warm-up queries
        }
        samples.sort()
        func percentile(_ p: Double) -> Double {
            (samples[min(samples.count - 1, Int(Double(samples.count) * p))] * 1_000).rounded() / 1_000
        }
        logger.info("summary: p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms over \(samples.count) queries")
        return AnalyticsFigures(events: applied, guides: guides, ingest_events_per_s: perSecond,
                                summary_ms: .init(p50: percentile(0.5), p99: percentile(0.99)))
    }
}

/// The live consumer targets of `waypoint.auth` and `waypoint.tours`, as the service runs them (``SQLiteAnalyticsTarget``).
struct AnalyticsBenchTargets: Sendable {
    let auth: any ConsumerTarget
    let tours: any ConsumerTarget

    init(storage: ServiceStorage, generation: Int) {
        let tables = ProjectionTables(generation: generation, isRebuild: false)
        auth = SQLiteAnalyticsTarget(database: storage.sqlite!, name: AnalyticsConsumerName.live(.auth), tables: tables)
        tours = SQLiteAnalyticsTarget(database: storage.sqlite!, name: AnalyticsConsumerName.live(.tours), tables: tables)
    }

    func prepare() async throws {
        _ = try await auth.prepare()
        _ = try await tours.prepare()
    }

    /// One delivery per topic, as each topic's consumer would apply its share of the batch.
    func apply(_ events: [PublishedEvent]) async throws -> Int {
        let authEvents = events.filter { $0.source == "auth" }
        let tourEvents = events.filter { $0.source != "auth" }
        var applied = 0
        if !authEvents.isEmpty { applied += try await auth.apply(authEvents) }
        if !tourEvents.isEmpty { applied += try await tours.apply(tourEvents) }
        return applied
    }
}

/// The generated marketplace (see ``measureAnalytics(events:guides:)``).
struct AnalyticsWorkload {
    let total: Int
    let guideIDs: [String]
    let tourIDs: [[String]]
    let travellerIDs: [String]
    let start: Date
    let end: Date
    private(set) var produced = 0
    private var random = BenchRandom(seed: 7)
    private var versions: [String: Int64] = [:]
    private var positions: [String: Int64] = [:]
    private let currencies = ["EUR", "USD", "GBP"]

    init(events: Int, guides: Int, travellers: Int = 200_000) {
        total = events
        var ids = BenchRandom(seed: 1)
        func uuid() -> String {
            let (a, b) = (ids.next(), ids.next())
            let hex = String(format: "%016llx%016llx", a, b)
            let chars = Array(hex)
            return "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-a\(String(chars[17..<20]))-\(String(chars[20..<32]))"
        }
        guideIDs = (0..<guides).map { _ in uuid() }
        tourIDs = guideIDs.map { _ in (0..<5).map { _ in uuid() } }
        travellerIDs = (0..<travellers).map { _ in uuid() }
        end = RFC3339Timestamp.date(from: "2026-03-31T23:00:00Z")!
        start = end.addingTimeInterval(-365 * 86_400)
    }

    var lastDay: UTCDay { UTCDay(end) }

    /// Decodes one payload of every generated type with the `Contracts` types: the templates are the published language.
    func selfCheck() throws {
        var probe = AnalyticsWorkload(events: 2_000, guides: 10, travellers: 100)
        for event in probe.next(2_000) {
            switch event.eventType {
            case TourViewed.eventType: _ = try event.decode(TourViewed.self)
            case PurchaseStarted.eventType: _ = try event.decode(PurchaseStarted.self)
            case PurchaseCompleted.eventType: _ = try event.decode(PurchaseCompleted.self)
            case PurchaseRefunded.eventType: _ = try event.decode(PurchaseRefunded.self)
            case TourAcquired.eventType: _ = try event.decode(TourAcquired.self)
            case ReviewPosted.eventType: _ = try event.decode(ReviewPosted.self)
            case ReviewEdited.eventType: _ = try event.decode(ReviewEdited.self)
            case TourStarted.eventType: _ = try event.decode(TourStarted.self)
            case TourCompleted.eventType: _ = try event.decode(TourCompleted.self)
            case TourPublished.eventType: _ = try event.decode(TourPublished.self)
            case UserRegistered.eventType: _ = try event.decode(UserRegistered.self)
            default: throw AnalyticsBenchError("unexpected type \(event.eventType)")
            }
        }
    }

    /// The next `count` events, in time order.
    mutating func next(_ count: Int) -> [PublishedEvent] {
        var events: [PublishedEvent] = []
        events.reserveCapacity(count)
        let span = end.timeIntervalSince(start)
        for _ in 0..<count {
            let at = start.addingTimeInterval(span * Double(produced) / Double(max(total, 1)))
            produced += 1
            events.append(event(at: at))
        }
        return events
    }

    private mutating func pick<T>(_ values: [T]) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    private mutating func event(at date: Date) -> PublishedEvent {
        let ts = RFC3339Timestamp.string(from: date)!
        let g = Int(random.next() % UInt64(guideIDs.count))
        let guide = guideIDs[g], tour = pick(tourIDs[g]), user = pick(travellerIDs)
        let currency = currencies[g % currencies.count]
        let roll = Int(random.next() % 1_000)
        let price = 500 + Int64(g % 20) * 100, fee = price / 5
        func money(_ amount: Int64) -> String { #"{"amountMinor":\#(amount),"currency":"\#(currency)"}"# }
        switch roll {
        case 0..<700:
            let signedIn = random.next() % 10 < 4
            let viewer = signedIn ? "user:\(user)" : "client:\(String(random.next() % 500_000, radix: 16))"
            let userField = signedIn ? #""userId":"\#(user)","# : ""
            return make("TourViewed", #"{"guideId":"\#(guide)","tourId":"\#(tour)",\#(userField)"viewedAt":"\#(ts)","viewer":"\#(viewer)"}"#,
                        stream: "views-\(tour)", source: "tour-management")
        case 700..<760:
            return make("PurchaseStarted", #"""
                {"feeBasisPoints":2000,"guideEarnings":\#(money(price - fee)),"guideId":"\#(guide)","platformFee":\#(money(fee)),"price":\#(money(price)),"provider":"sandbox","providerReference":"cs_\#(produced)","purchaseId":"\#(user)","revision":1,"startedAt":"\#(ts)","tourId":"\#(tour)","userId":"\#(user)"}
                """#, stream: "access-\(tour)-\(user)", source: "tour-management")
        case 760..<810:
            return make("PurchaseCompleted", #"""
                {"completedAt":"\#(ts)","guideEarnings":\#(money(price - fee)),"guideId":"\#(guide)","platformFee":\#(money(fee)),"price":\#(money(price)),"providerPaymentId":"pi_\#(produced)","purchaseId":"\#(user)","revision":1,"tourId":"\#(tour)","userId":"\#(user)"}
                """#, stream: "access-\(tour)-\(user)", source: "tour-management")
        case 810..<815:
            return make("PurchaseRefunded", #"""
                {"amount":\#(money(price)),"guideEarnings":\#(money(price - fee)),"guideId":"\#(guide)","platformFee":\#(money(fee)),"purchaseId":"\#(user)","refundedAt":"\#(ts)","tourId":"\#(tour)","userId":"\#(user)"}
                """#, stream: "access-\(tour)-\(user)", source: "tour-management")
        case 815..<855:
            return make("TourAcquired", #"{"acquiredAt":"\#(ts)","guideId":"\#(guide)","revision":1,"tourId":"\#(tour)","userId":"\#(user)"}"#,
                        stream: "access-\(tour)-\(user)", source: "tour-management")
        case 855..<875:
            return make("ReviewPosted", #"""
                {"guideId":"\#(guide)","postedAt":"\#(ts)","rating":\#(1 + random.next() % 5),"reviewId":"\#(user)","tourId":"\#(tour)","userId":"\#(user)"}
                """#, stream: "review-\(tour)-\(user)", source: "tour-management")
        case 875..<880:
            return make("ReviewEdited", #"""
                {"editedAt":"\#(ts)","guideId":"\#(guide)","previousRating":3,"rating":4,"reviewId":"\#(user)","tourId":"\#(tour)","userId":"\#(user)"}
                """#, stream: "review-\(tour)-\(user)", source: "tour-management")
        case 880..<930:
            return make("TourStarted", #"{"guideId":"\#(guide)","revision":1,"startedAt":"\#(ts)","tourId":"\#(tour)","userId":"\#(user)"}"#,
                        stream: "progress-\(tour)-\(user)", source: "tour-management")
        case 930..<960:
            return make("TourCompleted", #"{"completedAt":"\#(ts)","guideId":"\#(guide)","revision":1,"tourId":"\#(tour)","userId":"\#(user)"}"#,
                        stream: "progress-\(tour)-\(user)", source: "tour-management")
        case 960..<990:
            let role = random.next() % 10 == 0 ? "guide" : "traveller"
            let sealed = #"{"sealed":"AAECAwQFBgcICQoLc2VhbGVk","subject":"\#(user)"}"#
            return make("UserRegistered", #"""
                {"email":\#(sealed),"method":"password","registeredAt":"\#(ts)","role":"\#(role)","userId":"\#(user)","username":\#(sealed)}
                """#, stream: "user-\(user)", source: "auth")
        default:
            return make("TourPublished", #"""
                {"details":{"description":"A walk.","destinationId":\#(2_700_000 + g % 300),"difficulty":"easy","estimatedMinutes":60,"languages":["en"],"mode":"walk","price":\#(money(price)),"themes":["history"],"title":"Tour \#(tour.prefix(8))"},"guideId":"\#(guide)","lengthMetres":1200,"publishedAt":"\#(ts)","revision":1,"stops":[],"tourId":"\#(tour)"}
                """#, stream: "tour-\(tour)", source: "tour-management")
        }
    }

    private mutating func make(_ type: String, _ json: String, stream: String, source: String) -> PublishedEvent {
        let version = (versions[stream] ?? 0) + 1
        versions[stream] = version
        let position = (positions[source] ?? 0) + 1
        positions[source] = position
        let envelope = EventEnvelope(eventID: .v7(), streamID: stream, streamVersion: version, position: position, eventType: type,
                                     schemaVersion: 1, payload: Data(json.utf8), metadata: EventMetadata(), recordedAt: end)
        return PublishedEvent(envelope, source: source)
    }
}

/// SplitMix64: a fast, seeded generator, so every run generates the same workload.
struct BenchRandom {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct AnalyticsBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
