import Contracts
import Foundation
import Geo
import ServiceKit
import Testing
@testable import TourManagement

/// The catalogue's answers write their own JSON (``JSONWritableResponse``); it must say what ServiceKit's `JSONEncoder`
/// says for every value: random tours with every optional present or absent, strings with slashes, quotes, controls
/// and non-ASCII text, converted prices with and without a rates date, stops with and without media, dates of any
/// millisecond.
@Suite("tour-management: the catalogue's hand-written JSON equals JSONEncoder's")
struct CatalogueJSONTests {
    static let texts = ["Wachau", "a/b", "Quote \" and \\ backslash", "line\nbreak\ttab\u{01}", "Café Zürich – ☕️", "", "😀 emoji",
                        String(repeating: "long ", count: 80)]

    static func text(_ generator: inout some RandomNumberGenerator) -> String {
        texts.randomElement(using: &generator)! + String(Int.random(in: 0...999, using: &generator))
    }

    static func date(_ generator: inout some RandomNumberGenerator) -> Date {
        Date(timeIntervalSince1970: Double(Int64.random(in: 1_500_000_000_000_000...2_000_000_000_000_000, using: &generator)) / 1e6)
    }

    static func stop(_ generator: inout some RandomNumberGenerator) -> TourStop {
        TourStop(stopId: UUID(), name: text(&generator), description: text(&generator),
                 location: LatLng(lat: Double.random(in: -90...90, using: &generator), lng: Double.random(in: -180...180, using: &generator)),
                 triggerRadiusMetres: Int.random(in: 5...500, using: &generator),
                 media: (0..<Int.random(in: 0...3, using: &generator)).map { index in
                     StopMedia(sha256: String(repeating: "ab", count: 32), kind: ["image", "audio", "video"][index],
                               contentType: "image/jpeg", size: Int64.random(in: 1...1 << 40, using: &generator))
                 })
    }

    static func tour(_ generator: inout some RandomNumberGenerator) -> PublishedTour {
        let details = TourDetails(title: text(&generator), description: text(&generator), destinationId: Int64.random(in: 1...9_999_999, using: &generator),
                                  themes: Array(TourTheme.allCases.shuffled(using: &generator).prefix(Int.random(in: 0...4, using: &generator))),
                                  languages: ["de", "en", "fr-CA"].shuffled(using: &generator).prefix(Int.random(in: 0...3, using: &generator)).map { $0 },
                                  price: Money(amountMinor: Int64.random(in: 0...100_000, using: &generator), currency: [.eur, .usd, .jpy].randomElement(using: &generator)!),
                                  estimatedMinutes: Int.random(in: 1...600, using: &generator), difficulty: TourDifficulty.allCases.randomElement(using: &generator)!,
                                  mode: TourMode.allCases.randomElement(using: &generator)!)
        let stops = (0..<Int.random(in: 1...6, using: &generator)).map { _ in stop(&generator) }
        let count = Int.random(in: 0...50, using: &generator)
        return PublishedTour(tourId: UUID(), document: .init(guideId: UUID(), revision: Int.random(in: 1...40, using: &generator), details: details,
                                                             stops: stops, lengthMetres: Int.random(in: 0...40_000, using: &generator)),
                             listed: true, firstPublishedAt: date(&generator), publishedAt: date(&generator),
                             rating: TourRating(count: count, sum: count * Int.random(in: 1...5, using: &generator)),
                             popularity: Int.random(in: 0...10_000, using: &generator))
    }

    static func summary(_ tour: PublishedTour, _ generator: inout some RandomNumberGenerator, full: Bool) throws -> TourSummaryResponse {
        let city = Bool.random(using: &generator)
            ? City(id: tour.details.destinationId, name: text(&generator), country: Bool.random(using: &generator) ? "AT" : "",
                   coordinate: try Coordinate(latitude: 48.4, longitude: 15.6))
            : nil
        var summary = TourSummaryResponse(tour, guideName: Bool.random(using: &generator) ? text(&generator) : nil, city: city,
                                          distanceMetres: Bool.random(using: &generator) ? Double.random(in: 0...50_000, using: &generator) : nil,
                                          fullDescription: full)
        if Bool.random(using: &generator) {
            summary.convertedPrice = ConvertedPrice(amountMinor: Int64.random(in: 0...1_000_000, using: &generator), currency: .chf,
                                                    ratesUpdatedAt: Bool.random(using: &generator) ? date(&generator) : nil)
        }
        return summary
    }

    static func check(_ value: some JSONWritableResponse) throws {
        let written = try #require(value.jsonBytes(style: .service), "the writer gave up")
        let encoded = try ServiceJSON.makeEncoder().encode(value)
        #expect(JSONOutput.equivalent(Data(written), encoded),
                "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded, as: UTF8.self))")
        // Valid JSON on its own, too.
        #expect((try? JSONSerialization.jsonObject(with: Data(written))) != nil)
    }

    @Test("search answers: 300 random pages (0–20 tours, with and without a next cursor)")
    func lists() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let tours = try (0..<Int.random(in: 0...20, using: &generator)).map { _ in try Self.summary(Self.tour(&generator), &generator, full: false) }
            try Self.check(TourListResponse(tours: tours, nextCursor: Bool.random(using: &generator) ? "c/\(Int.random(in: 0...99, using: &generator))" : nil))
        }
    }

    @Test("detail answers: 300 random tours, entitled (every stop in full) or not (names and places only), with and without a first stop")
    func details() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let tour = Self.tour(&generator)
            let entitled = Bool.random(using: &generator)
            let response = TourDetailResponse(tour: try Self.summary(tour, &generator, full: true), entitled: entitled,
                                              stops: tour.stops.map { TourDetailResponse.Stop($0, full: entitled) },
                                              firstStop: Bool.random(using: &generator) ? tour.stops.first : nil)
            try Self.check(response)
        }
    }

    @Test("stored summaries decode once per text: the memo answers what a fresh decode answers, a changed text is decoded anew, past its bound too")
    func summaryMemo() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = PublishedTour.encoder
        var tours = (0..<50).map { _ in Self.tour(&generator) }
        for round in 0..<3 {
            for index in tours.indices {
                if round == 2 { tours[index].details.title += " (revised)" }
                let text = String(decoding: try encoder.encode(tours[index].summary), as: UTF8.self)
                let memo = try PublishedTour.summary(from: text)
                let fresh = try PublishedTour.decoder.decode(PublishedTour.Summary.self, from: Data(text.utf8))
                #expect(try encoder.encode(memo) == (try encoder.encode(fresh)))
                #expect(memo.details.title == tours[index].details.title)
            }
        }
        // Past the bound (the memo empties itself whole): still right.
        let base = tours[0].summary
        for index in 0..<(PublishedTour.summaryMemoLimit + 10) {
            var summary = base
            summary.revision = index
            let text = String(decoding: try encoder.encode(summary), as: UTF8.self)
            #expect(try PublishedTour.summary(from: text).revision == index)
        }
        #expect(throws: (any Error).self) { try PublishedTour.summary(from: "{\"not\":\"a summary\"}") }
    }
}
