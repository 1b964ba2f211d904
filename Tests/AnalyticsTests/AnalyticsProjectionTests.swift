@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import ServiceTesting
import Testing

/// The analytics read model on every enabled backend (one conformance suite): the figures of a worked example, double
/// delivery, order independence, erasure, tolerant reading and loud failure.
@Suite("analytics: projections of the topics (SQLite and PostgreSQL)")
struct AnalyticsProjectionTests {
    @Test("the scenario's figures: per guide, per tour, per currency, per month, platform", arguments: TestBackend.enabled)
    func figures(backend: TestBackend) async throws {
        try await AnalyticsHarness.withStorage(backend) { storage in
            let events = Scenario.events.events
            #expect(try await AnalyticsHarness.deliver(events, to: storage) == events.count)
            let f = try await AnalyticsHarness.figures(storage)

            // Guide 1: T1 (EUR) and T2 (USD).
            let g1 = f.g1
            #expect((g1.from, g1.to) == ("2026-02-01", "2026-03-31"))
            #expect(g1.views == 6)
            #expect(g1.uniqueViewers == 3, "user:u1, client:c1hash and user:u2 — u1 counted once across days and tours")
            #expect(g1.checkouts == 4)
            #expect((g1.purchases, g1.acquisitions) == (3, 0))
            #expect(g1.conversionRate == 1.0)
            #expect(g1.sales.map(\.currency) == ["EUR", "USD"], "one entry per currency, never summed")
            let eur = try #require(g1.sales.first)
            #expect((eur.purchases, eur.grossMinor, eur.platformFeeMinor, eur.earningsMinor) == (2, 2000, 400, 1600))
            #expect((eur.refunds, eur.refundedMinor, eur.refundedPlatformFeeMinor, eur.refundedEarningsMinor, eur.netEarningsMinor)
                == (1, 1000, 200, 800, 800))
            let usd = try #require(g1.sales.last)
            #expect((usd.purchases, usd.grossMinor, usd.earningsMinor, usd.netEarningsMinor) == (1, 1500, 1200, 1200))
            #expect(g1.refunds == 1)
            #expect(g1.rating == RatingFigures(average: 5.0, count: 1), "4 edited to 5; the 2 was hidden")
            #expect(g1.reviews == 2)
            #expect((g1.starts, g1.completions, g1.completionRate) == (2, 1, 0.5))
            #expect(g1.tours.map(\.tourId) == [Scenario.t1, Scenario.t2])
            let t1 = g1.tours[0], t2 = g1.tours[1]
            #expect((t1.title, t1.listed, t1.views, t1.uniqueViewers, t1.purchases) == ("Krems old town", true, 5, 3, 2))
            #expect((t2.title, t2.listed, t2.views, t2.uniqueViewers, t2.purchases, t2.conversionRate) == ("Vienna by night", false, 1, 1, 1, 1.0))
            #expect(g1.earningsByMonth.count == 12)
            #expect(g1.earningsByMonth.first?.month == "2025-04")
            #expect(g1.earningsByMonth[10] == MonthEarnings(month: "2026-02", netEarnings: [CurrencyAmount(currency: "EUR", amountMinor: 800)]))
            #expect(g1.earningsByMonth[11] == MonthEarnings(month: "2026-03", netEarnings: [
                CurrencyAmount(currency: "EUR", amountMinor: 0), CurrencyAmount(currency: "USD", amountMinor: 1200),
            ]))
            #expect(g1.topTours.map(\.tourId) == [Scenario.t1, Scenario.t2])
            #expect(g1.recentActivity.count == 13)
            #expect(g1.recentActivity.first?.kind == .reviewHidden)
            #expect(g1.recentActivity.map(\.at) == g1.recentActivity.map(\.at).sorted(by: >))
            #expect(g1.recentActivity.contains { $0.kind == .purchase && $0.amount == CurrencyAmount(currency: "USD", amountMinor: 1500) })
            #expect(g1.recentActivity.allSatisfy { $0.tourTitle != nil })

            // Guide 2: one free tour.
            let g2 = f.g2
            #expect((g2.views, g2.uniqueViewers, g2.acquisitions, g2.purchases, g2.conversionRate) == (2, 2, 1, 0, 0.5))
            #expect(g2.sales.isEmpty)
            #expect(g2.rating == RatingFigures(average: 3.0, count: 1))
            #expect((g2.starts, g2.completions, g2.completionRate) == (1, 1, 1.0))

            // One tour: daily series and totals agree with the guide's table.
            let tour = try #require(f.t1)
            #expect(tour.guideId == Scenario.g1)
            #expect(tour.figures == t1)
            #expect(tour.days.count == 59)
            #expect(tour.days.first { $0.date == "2026-02-10" } == TourDay(date: "2026-02-10", views: 3, uniqueViewers: 2, checkouts: 1,
                                                                             purchases: 1, acquisitions: 0, starts: 0, completions: 0))
            #expect(tour.days.reduce(0) { $0 + $1.views } == t1.views)

            // Weekly views (ISO weeks, Monday first): 2026-02-10 is in W07, 2026-03-02/03 in W10.
            #expect(f.views.first?.label == "2026-W05")
            #expect(f.views.first { $0.label == "2026-W07" }.map { ($0.views, $0.uniqueViewers) } ?? (0, 0) == (3, 2))
            #expect(f.views.first { $0.label == "2026-W10" }.map { ($0.views, $0.uniqueViewers) } ?? (0, 0) == (3, 2))
            #expect(f.earnings.map(\.month) == ["2026-02", "2026-03"])

            // Platform.
            let p = f.platform
            #expect(p.registrationsByRole == ["guide": 2, "traveller": 3])
            #expect(p.registrations.first { $0.date == "2026-02-02" }?.byRole == ["traveller": 2], "23:59:59 UTC is still the 2nd")
            #expect(p.registrations.first { $0.date == "2026-02-03" }?.byRole == ["traveller": 1])
            #expect(p.registrations.count == 59)
            #expect((p.activeGuides, p.guidesWithListedTours) == (2, 2))
            #expect(p.sales.map(\.currency) == ["EUR", "USD"])
            #expect(p.funnel == PurchaseFunnel(views: 8, checkouts: 4, purchases: 3, acquisitions: 1, starts: 3, completions: 2,
                                               viewToPurchaseRate: 0.5, purchaseToCompletionRate: 0.5))
            #expect(p.topDestinations.map(\.destinationId) == [Scenario.krems, Scenario.vienna])
            #expect(p.topDestinations.first.map { ($0.purchases, $0.acquisitions, $0.views, $0.completions) } ?? (0, 0, 0, 0) == (2, 1, 7, 2))
        }
    }

    @Test("every event delivered twice — again, in overlapping batches, and duplicated inside a batch — gives the same figures",
          arguments: TestBackend.enabled)
    func doubleDelivery(backend: TestBackend) async throws {
        var log = Scenario.events
        Scenario.erasures(&log)
        let events = log.events
        let once = try await AnalyticsHarness.withStorage(backend) { storage in
            #expect(try await AnalyticsHarness.deliver(events, to: storage) == events.count)
            let once = try await AnalyticsHarness.dump(storage)
            let figures = try await AnalyticsHarness.figures(storage)
            #expect(try await AnalyticsHarness.deliver(events, to: storage) == 0)
            #expect(try await AnalyticsHarness.deliver(Array(events[10..<30]) + Array(events[5...]), to: storage) == 0)
            #expect(try await AnalyticsHarness.dump(storage) == once)
            #expect(try await AnalyticsHarness.figures(storage) == figures)
            return once
        }
        try await AnalyticsHarness.withStorage(backend) { storage in
            // Each event twice in a row (a relay re-send inside one batch).
            let doubled = events.flatMap { [$0, $0] }
            let applied = try await AnalyticsHarness.deliver(doubled, to: storage)
            #expect(applied == events.count)
            let dump = try await AnalyticsHarness.dump(storage)
            #expect(dump == once)
        }
    }

    @Test("topics interleaved differently (tours before auth, erasures first or last, streams shuffled) give the same tables",
          arguments: TestBackend.enabled)
    func orderIndependence(backend: TestBackend) async throws {
        var log = Scenario.events
        Scenario.erasures(&log)
        let auth = log.from("auth"), tours = log.from("tour-management")
        // Shuffle across streams but keep each stream's own order (as both transports guarantee: Kafka keys by stream).
        var generator = SeededGenerator(seed: 42)
        let shuffledTours = Self.interleaveStreams(tours, using: &generator)
        let orders: [[PublishedEvent]] = [auth + tours, shuffledTours + auth, Self.interleaveStreams(tours + auth, using: &generator)]
        var dumps: [[String: [String]]] = []
        for order in orders {
            dumps.append(try await AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(order, to: storage)
                return try await AnalyticsHarness.dump(storage)
            })
        }
        for dump in dumps.dropFirst() { #expect(dump == dumps[0]) }
    }

    @Test("erasure removes the person from every analytics table; platform totals stay; later events stay anonymous",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        try await AnalyticsHarness.withStorage(backend) { storage in
            var log = Scenario.events
            try await AnalyticsHarness.deliver(log.events, to: storage)
            let before = try await AnalyticsHarness.figures(storage)
            Scenario.erasures(&log)
            let erasures = Array(log.events.suffix(2))
            #expect(try await AnalyticsHarness.deliver(erasures, to: storage) == 2)

            let dump = try await AnalyticsHarness.dump(storage)
            for person in [Scenario.u1, Scenario.g2] {
                let found = dump.flatMap { table, rows in rows.filter { $0.contains(person) }.map { "\(table): \($0)" } }
                #expect(found.isEmpty, "\(person) still in \(found)")
            }
            #expect(dump[AnalyticsSchema.erased]?.count == 2, "tombstones are hashes, never the ids")
            #expect(dump.values.joined().contains { $0.contains(Scenario.u2) }, "other people are untouched")

            let after = try await AnalyticsHarness.figures(storage)
            #expect(after.g1.uniqueViewers == 2, "u1's views no longer count as a viewer")
            #expect(after.g1.views == before.g1.views, "views stay counted")
            #expect(after.g1.sales == before.g1.sales)
            #expect(after.g2.views == 0 && after.g2.tours.isEmpty && after.g2.recentActivity.isEmpty, "an erased guide has no figures")
            #expect(after.platform.funnel == before.platform.funnel, "anonymous totals are kept")
            #expect(after.platform.sales == before.platform.sales)
            #expect(after.platform.topDestinations == before.platform.topDestinations)
            #expect((after.platform.activeGuides, after.platform.guidesWithListedTours) == (1, 1))

            // Events about erased people arriving later (another partition, a slow topic) are written anonymously.
            var late = EventLog()
            late.add(TourViewed(tourId: Scenario.id(Scenario.t3), guideId: Scenario.id(Scenario.g2), viewer: "user:\(Scenario.u1)",
                                userId: Scenario.id(Scenario.u1), viewedAt: Scenario.date("2026-03-21T10:00:00Z")),
                     stream: "views-late", source: "tour-management")
            late.add(TourAcquired(tourId: Scenario.id(Scenario.t3), userId: Scenario.id(Scenario.u1), guideId: Scenario.id(Scenario.g2),
                                  revision: 1, acquiredAt: Scenario.date("2026-03-21T10:01:00Z")), stream: "access-late", source: "tour-management")
            try await AnalyticsHarness.deliver(late.events, to: storage)
            let later = try await AnalyticsHarness.dump(storage)
            for person in [Scenario.u1, Scenario.g2] {
                #expect(!later.values.joined().contains { $0.contains(person) })
            }
            #expect(try await AnalyticsHarness.figures(storage).platform.funnel.views == before.platform.funnel.views + 1)
        }
    }

    @Test("unknown event types are ignored; a known type that does not decode stops the consumer and commits nothing",
          arguments: TestBackend.enabled)
    func tolerantAndLoud(backend: TestBackend) async throws {
        try await AnalyticsHarness.withStorage(backend) { storage in
            var log = EventLog()
            // Types analytics does not apply, on any topic, are ignored (a malformed one too), and still deduped.
            log.add(type: "PathApproved", payload: Data(#"{"pathId":"x"}"#.utf8), stream: "path-1", source: "path-review")
            log.add(type: "TripRecorded", payload: Data(#"{"km":3}"#.utf8), stream: "trip-1", source: "record-trip")
            log.add(type: "RouteSearched", payload: Data("not even json".utf8), stream: "nav-1", source: "navigation")
            let ignored = log.events
            let applied = try await AnalyticsHarness.deliver(ignored, to: storage)
            #expect(applied == 3)
            let empty = try await AnalyticsHarness.dump(storage)
            let allEmpty = empty.filter { $0.key != AnalyticsSchema.inbox }.values.allSatisfy { $0.isEmpty }
            #expect(allEmpty)
            #expect(empty[AnalyticsSchema.inbox]?.count == 3, "ignored events are still recorded as applied")

            var bad = EventLog()
            bad.add(TourViewed(tourId: Scenario.id(Scenario.t1), guideId: Scenario.id(Scenario.g1), viewer: "client:x", userId: nil,
                               viewedAt: Scenario.t0), stream: "views-ok")
            bad.add(type: TourViewed.eventType, payload: Data(#"{"tourId":42}"#.utf8), stream: "views-bad", source: "tour-management")
            await #expect(throws: ConsumerFailure.self) { try await AnalyticsHarness.deliver(bad.events, to: storage) }
            var future = EventLog()
            future.add(type: PurchaseCompleted.eventType, schemaVersion: 2, payload: Data("{}".utf8), stream: "access-x", source: "tour-management")
            await #expect(throws: ConsumerFailure.self) { try await AnalyticsHarness.deliver(future.events, to: storage) }
            let afterFailures = try await AnalyticsHarness.dump(storage)
            let stillEmpty = afterFailures.filter { $0.key != AnalyticsSchema.inbox }.values.allSatisfy { $0.isEmpty }
                && afterFailures[AnalyticsSchema.inbox] == empty[AnalyticsSchema.inbox]
            #expect(stillEmpty, "the failed batches left nothing behind")
        }
    }

    @Test("SQLite and PostgreSQL hold the same tables for the same events")
    func backendsAgree() async throws {
        guard TestBackend.enabled.count > 1 else { return }
        var log = Scenario.events
        Scenario.erasures(&log)
        let events = log.events
        var dumps: [[String: [String]]] = []
        for backend in TestBackend.enabled {
            dumps.append(try await AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(events, to: storage)
                return try await AnalyticsHarness.dump(storage)
            })
        }
        #expect(dumps[0] == dumps[1])
    }

    @Test("the activity feed keeps the 50 newest events per guide, whatever the arrival order", arguments: TestBackend.enabled)
    func activityBound(backend: TestBackend) async throws {
        var log = EventLog()
        for minute in 0..<60 {
            log.add(TourStarted(tourId: Scenario.id(Scenario.t1), userId: UUID(), guideId: Scenario.id(Scenario.g1), revision: 1,
                                startedAt: Scenario.t0.addingTimeInterval(Double(minute) * 60)), stream: "progress-\(minute)")
        }
        let events = log.events
        var generator = SeededGenerator(seed: 7)
        let shuffled = events.shuffled(using: &generator)
        let (inOrder, outOfOrder) = try await (
            AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(events, to: storage)
                return try await AnalyticsHarness.dump(storage)
            },
            AnalyticsHarness.withStorage(backend) { storage in
                try await AnalyticsHarness.deliver(shuffled, to: storage)
                return try await AnalyticsHarness.dump(storage)
            })
        #expect(inOrder[AnalyticsSchema.activity]?.count == 50)
        #expect(inOrder == outOfOrder)
    }

    @Test("the batch target of the SQLite consumers writes exactly what the kernel's target with the per-event handler writes")
    func batchTargetEqualsKernelTarget() async throws {
        var log = Scenario.events
        Scenario.erasures(&log)
        var late = log
        // Events after the erasures, in the same batches as them: the batch must flush before it erases.
        late.add(TourViewed(tourId: Scenario.id(Scenario.t3), guideId: Scenario.id(Scenario.g2), viewer: "user:\(Scenario.u1)",
                            userId: Scenario.id(Scenario.u1), viewedAt: Scenario.date("2026-03-21T10:00:00Z")), stream: "views-\(Scenario.t3)")
        late.add(ReviewPosted(reviewId: UUID(), tourId: Scenario.id(Scenario.t3), userId: Scenario.id(Scenario.u1), guideId: Scenario.id(Scenario.g2),
                              rating: 5, text: nil, postedAt: Scenario.date("2026-03-21T11:00:00Z")), stream: "review-\(Scenario.t3)-\(Scenario.u1)")
        var generator = SeededGenerator(seed: 3)
        let events = Self.interleaveStreams(late.events, using: &generator)
        let tables = ProjectionTables(generation: 1, isRebuild: false)
        /// The analytics tables, the source positions, and the dedupe records as (stream key, version) — the kernel's target
        /// keeps them in `es_inbox` by stream id, the batch target in `analytics_inbox` by hashed key.
        @Sendable func state(_ storage: ServiceStorage) async throws -> [String: [String]] {
            var dump = try await AnalyticsHarness.dump(storage)
            let rows = try await AnalyticsDatabase(storage).fetch([
                AnalyticsQuery("SELECT source, stream_id, last_version FROM es_inbox"),
                AnalyticsQuery("SELECT name, position FROM es_projections WHERE substr(name, 1, 9) = 'consumer:'"),
            ])
            let kernel = rows[0].map { "\(AnalyticsBatch.streamKey(source: $0.text(0)!, stream: $0.text(1)!))|\($0.int(2))" }
            dump[AnalyticsSchema.inbox] = (dump[AnalyticsSchema.inbox]! + kernel).sorted()
            dump["es_projections"] = rows[1].map { "\($0.text(0)!)|\($0.int(1))" }.sorted()
            return dump
        }
        @Sendable func deliver(_ events: [PublishedEvent], batch: Int, part partSize: Int = SQLiteAnalyticsTarget.defaultPartSize,
                               kernel: Bool, _ storage: ServiceStorage) async throws {
            for start in stride(from: 0, to: events.count, by: batch) {
                let slice = Array(events[start..<min(start + batch, events.count)])
                for topic in [Topic.auth, .tours] {
                    let name = AnalyticsConsumerName.live(topic)
                    let part = slice.filter { $0.source == topic.producingService }
                    guard !part.isEmpty else { continue }
                    let target: any ConsumerTarget = kernel
                        ? SQLiteConsumerTarget(database: storage.sqlite!, handler: SQLiteAnalyticsHandler(name: name, tables: tables))
                        : SQLiteAnalyticsTarget(database: storage.sqlite!, name: name, tables: tables, partSize: partSize)
                    _ = try await target.prepare()
                    _ = try await target.apply(part + part.prefix(3))
                }
            }
        }
        let reference = try await AnalyticsHarness.withStorage(.sqlite) { storage in
            // The kernel's target needs its dedupe table.
            try await storage.sqlite!.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS es_inbox (consumer TEXT NOT NULL, source TEXT NOT NULL, stream_id TEXT NOT NULL,
                        last_version INTEGER NOT NULL, PRIMARY KEY (consumer, source, stream_id)) WITHOUT ROWID
                    """)
            }
            try await deliver(events, batch: 1, kernel: true, storage)
            return try await state(storage)
        }
        #expect(reference[AnalyticsSchema.inbox]?.isEmpty == false)
        // Batches of 1,000 in parts of 5 and 64: planned on a reader while the part before is written (the pipeline).
        for (batch, part) in [(1, SQLiteAnalyticsTarget.defaultPartSize), (7, SQLiteAnalyticsTarget.defaultPartSize),
                              (1_000, SQLiteAnalyticsTarget.defaultPartSize), (1_000, 5), (1_000, 64)] {
            let batched = try await AnalyticsHarness.withStorage(.sqlite) { storage in
                try await storage.sqlite!.write { db in
                    try db.execute(sql: """
                        CREATE TABLE IF NOT EXISTS es_inbox (consumer TEXT NOT NULL, source TEXT NOT NULL, stream_id TEXT NOT NULL,
                            last_version INTEGER NOT NULL, PRIMARY KEY (consumer, source, stream_id)) WITHOUT ROWID
                        """)
                }
                try await deliver(events, batch: batch, part: part, kernel: false, storage)
                return try await state(storage)
            }
            #expect(batched == reference, "batches of \(batch) in parts of \(part)")
        }
    }

    /// Interleaves the streams of `events` randomly, keeping each stream's own order.
    static func interleaveStreams(_ events: [PublishedEvent], using generator: inout SeededGenerator) -> [PublishedEvent] {
        var queues = Dictionary(grouping: events, by: \.streamID).mapValues { ArraySlice($0) }
        var result: [PublishedEvent] = []
        while !queues.isEmpty {
            let key = queues.keys.sorted().randomElement(using: &generator)!
            result.append(queues[key]!.removeFirst())
            if queues[key]!.isEmpty { queues[key] = nil }
        }
        return result
    }
}

/// A small deterministic generator (SplitMix64), so shuffles repeat.
struct SeededGenerator: RandomNumberGenerator {
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
