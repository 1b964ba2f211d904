@testable import Analytics
import Contracts
import EventSourcing
import Foundation
import Messaging
import Testing

/// The payload reader reads exactly what `ContractJSON` writes for every event type analytics applies, and refuses
/// what is not well-formed or lacks what analytics needs.
@Suite("analytics: reading payloads of the published language")
struct PayloadReaderTests {
    @Test("every applied type of the scenario reads into the fact its Contracts value describes")
    func contracts() throws {
        let events = Scenario.events.events
        var facts: [AnalyticsFact] = []
        for event in events {
            if let fact = try AnalyticsEvents.fact(event) { facts.append(fact) }
        }
        // The marketplace's types (the bike side's are covered by `BikeScenario`, `RiderAnalyticsTests.payloads`).
        let applied = Set(AnalyticsEvents.tourReaders.keys)
        #expect(facts.count == events.filter { applied.contains($0.eventType) }.count)
        let types = Set(events.map(\.eventType))
        #expect(applied.isSubset(of: types.union([UserErased.eventType])), "the scenario covers every type analytics applies")

        let views = events.filter { $0.eventType == TourViewed.eventType }
        let first = try views[0].decode(TourViewed.self)
        #expect(try AnalyticsEvents.fact(views[0]) == .viewed(
            tourId: first.tourId.uuidString.lowercased(), guideId: first.guideId.uuidString.lowercased(), viewer: first.viewer,
            userId: first.userId?.uuidString.lowercased(), at: first.viewedAt.microsecondsSince1970))
        let purchase = try #require(events.first { $0.eventType == PurchaseCompleted.eventType })
        let completed = try purchase.decode(PurchaseCompleted.self)
        #expect(try AnalyticsEvents.fact(purchase) == .purchased(
            tourId: Scenario.t1, guideId: Scenario.g1, price: Amount(minor: completed.price.amountMinor, currency: "EUR"),
            fee: completed.platformFee.amountMinor, earnings: completed.guideEarnings.amountMinor, at: completed.completedAt.microsecondsSince1970))
        let published = try #require(events.first { $0.eventType == TourPublished.eventType })
        #expect(try AnalyticsEvents.fact(published) == .published(
            tourId: Scenario.t1, guideId: Scenario.g1, title: "Krems old town", destinationId: Scenario.krems,
            price: Amount(minor: 1000, currency: "EUR"), at: Scenario.date("2026-02-05T09:00:00Z").microsecondsSince1970))
    }

    @Test("JSON details: escapes, unicode, whitespace, upper-case UUIDs, fractional seconds, anonymous viewers")
    func details() throws {
        let json = #"""
         { "tourId" : "77777777-7777-4777-8777-77777777777A", "guideId":"11111111-1111-4111-8111-111111111111",
           "viewer":"client:a\"b\\c\u00e9\ud83d\ude00", "userId":null, "viewedAt":"2026-02-10T10:00:00.123456+01:00",
           "extra": {"nested": [1, 2.5e3, -0.5, true, false, null, "x"]} }
        """#
        let reader = try PayloadReader(Data(json.utf8))
        #expect(try reader.uuid("tourId") == "77777777-7777-4777-8777-77777777777a")
        #expect(try reader.string("viewer") == "client:a\"b\\cé😀")
        #expect(try reader.optionalUUID("userId") == nil)
        #expect(try reader.timestamp("viewedAt") == Scenario.date("2026-02-10T09:00:00.123456Z").microsecondsSince1970)
        #expect(AnalyticsEvents.signedInUser("user:\(Scenario.u1.uppercased())") == Scenario.u1)
        #expect(AnalyticsEvents.signedInUser("client:abc") == nil)
    }

    @Test("malformed payloads and missing, mistyped or invalid fields are refused", arguments: [
        "", "{", "[]", "{\"tourId\":}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":\"\u{01}\"}", "{\"a\":tru}", "{\"a\":1} x", "{\"a\":\"\\x\"}",
        "{\"a\":-}", "{\"a\":1.}", "{\"a\":\"unterminated}",
    ])
    func malformed(json: String) {
        #expect(throws: PayloadError.self) { try PayloadReader(Data(json.utf8)) }
    }

    @Test("fields analytics needs must be present, typed and valid")
    func fields() throws {
        func fact(_ type: String, _ json: String, version: Int = 1) throws -> AnalyticsFact? {
            var log = EventLog()
            return try AnalyticsEvents.fact(log.add(type: type, schemaVersion: version, payload: Data(json.utf8), stream: "s", source: "tour-management"))
        }
        let ok = #"{"tourId":"\#(Scenario.t1)","userId":"\#(Scenario.u1)","guideId":"\#(Scenario.g1)","revision":1,"acquiredAt":"2026-02-01T00:00:00Z"}"#
        #expect(try fact(TourAcquired.eventType, ok) != nil)
        #expect(try fact("SomethingNew", "not json") == nil, "unknown types are not even parsed")
        let broken = [
            #"{"tourId":"\#(Scenario.t1)","guideId":"\#(Scenario.g1)","acquiredAt":"yesterday"}"#,
            #"{"tourId":"not-a-uuid","guideId":"\#(Scenario.g1)","acquiredAt":"2026-02-01T00:00:00Z"}"#,
            #"{"tourId":"\#(Scenario.t1)","acquiredAt":"2026-02-01T00:00:00Z"}"#,
            #"{"tourId":"\#(Scenario.t1)","guideId":null,"acquiredAt":"2026-02-01T00:00:00Z"}"#,
            #"{"tourId":5,"guideId":"\#(Scenario.g1)","acquiredAt":"2026-02-01T00:00:00Z"}"#,
        ]
        for json in broken {
            #expect(throws: EventDecodingError.self) { try fact(TourAcquired.eventType, json) }
        }
        #expect(throws: EventDecodingError.self) { try fact(TourAcquired.eventType, ok, version: 2) }
        let review = #"{"tourId":"\#(Scenario.t1)","guideId":"\#(Scenario.g1)","rating":6,"postedAt":"2026-02-01T00:00:00Z"}"#
        #expect(throws: EventDecodingError.self) { try fact(ReviewPosted.eventType, review) }
        let mixed = #"""
            {"tourId":"\#(Scenario.t1)","guideId":"\#(Scenario.g1)","price":{"amountMinor":100,"currency":"EUR"},
             "platformFee":{"amountMinor":20,"currency":"USD"},"guideEarnings":{"amountMinor":80,"currency":"EUR"},"completedAt":"2026-02-01T00:00:00Z"}
            """#
        #expect(throws: EventDecodingError.self) { try fact(PurchaseCompleted.eventType, mixed) }
        let overflow = #"{"tourId":"\#(Scenario.t1)","guideId":"\#(Scenario.g1)","rating":99999999999999999999,"postedAt":"2026-02-01T00:00:00Z"}"#
        #expect(throws: EventDecodingError.self) { try fact(ReviewPosted.eventType, overflow) }
    }
}

@Suite("analytics: UTC days, ISO weeks, calendar months")
struct UTCDayTests {
    @Test("days are UTC, whatever the offset of the timestamp")
    func days() {
        #expect(UTCDay(Scenario.date("2026-03-01T00:30:00+01:00")).iso == "2026-02-28")
        #expect(UTCDay(Scenario.date("2026-02-28T23:59:59.999Z")).iso == "2026-02-28")
        #expect(UTCDay(microsecondsSince1970: -1).iso == "1969-12-31")
        #expect(UTCDay(iso: "2024-02-29")?.iso == "2024-02-29")
        #expect(UTCDay(iso: "2026-02-29") == nil && UTCDay(iso: "2026-13-01") == nil && UTCDay(iso: "2026-1-01") == nil)
        #expect(UTCDay(iso: "1970-01-01")?.number == 0)
        for number in stride(from: -1000, through: 30_000, by: 37) { #expect(UTCDay(iso: UTCDay(number).iso)?.number ?? number == number) }
    }

    @Test("ISO 8601 weeks: Monday first, week 1 holds the first Thursday", arguments: [
        ("2026-01-01", "2026-W01"), ("2025-12-29", "2026-W01"), ("2025-12-28", "2025-W52"), ("2021-01-03", "2020-W53"),
        ("2020-12-31", "2020-W53"), ("2024-12-30", "2025-W01"), ("2026-02-10", "2026-W07"), ("2027-01-03", "2026-W53"),
    ])
    func weeks(day: String, week: String) throws {
        let parsed = try #require(UTCDay(iso: day))
        #expect(parsed.isoWeek.description == week)
        #expect(parsed.weekStart.isoWeekday == 1)
    }

    @Test("calendar months")
    func months() {
        let march = CalendarMonth(year: 2026, month: 3)
        #expect(march.advanced(by: -3).description == "2025-12")
        #expect(march.advanced(by: 10).description == "2027-01")
        #expect(CalendarMonth(year: 2024, month: 2).lastDay.iso == "2024-02-29")
        #expect(AnalyticsQueries.twelveMonths(endingWith: UTCDay(iso: "2026-03-15")!).map(\.description).first == "2025-04")
    }

    @Test("SVG scales are nice and text is escaped")
    func chartPieces() {
        #expect(SVGChart.YScale(maximum: 0).ticks == [0, 0.5, 1])
        #expect(SVGChart.YScale(maximum: 800).ticks == [0, 200, 400, 600, 800])
        #expect(SVGChart.YScale(maximum: 1200).ticks == [0, 500, 1000, 1500])
        #expect(SVGChart.escape("a<b & \"c\" 'd'\u{01}") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;")
        #expect(SVGChart.major(1250, exponent: 2) == "12.50" && SVGChart.major(1500, exponent: 0) == "1500")
    }
}
