import Contracts
import Foundation
import Geo
import Logging
import TourManagement

/// One filter combination of the mix: how to draw one query of it (parameters vary per query).
struct SearchCombination: Sendable {
    /// The JSON key.
    var name: String
    /// Pages fetched (untimed) before the timed one, following `nextCursor`: 2 for "the third page".
    var pagesBefore = 0
    var make: @Sendable (inout SeededGenerator, TourCorpus) -> DiscoveryQuery
}

/// A drawn query: the combination it belongs to and the query (its cursor set once pages before it were fetched).
struct SearchSpec: Sendable {
    var combination: Int
    var query: DiscoveryQuery
}

/// The documented mix of filter combinations (docs/benchmarks.md, `tours`), each drawn `perCombination` times after
/// `warmup` untimed draws, all run in one seeded shuffled order so that no combination gets a quieter stretch of the run.
struct TourSearchMix: Sendable {
    var combinations: [SearchCombination]
    var warmup: [SearchSpec]
    var timed: [SearchSpec]

    static let radiusMetres = 10_000.0

    static let languageQueries = ["en", "de", "fr", "es", "it", "ja", "zh", "nl", "pt", "ko", "pl", "sv", "cs", "el", "tr", "th"]
    static let languageQueryWeights = cumulativeWeights([30, 14, 12, 10, 8, 5, 5, 4, 3, 2, 2, 1, 1, 1, 1, 1])

    static let all: [SearchCombination] = [
        SearchCombination(name: "none") { _, _ in DiscoveryQuery() },
        SearchCombination(name: "destination") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.destinationId = destination(&rng, corpus).city.id
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "destination_themes_rating") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.destinationId = destination(&rng, corpus).city.id
            filter.themes = themes(Int.random(in: 1...2, using: &rng), &rng)
            return DiscoveryQuery(filter: filter, sort: .rating)
        },
        SearchCombination(name: "near_distance") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.near = DiscoveryCircle(centre: centre(&rng, corpus), radiusMetres: radiusMetres)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "near_text") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.near = DiscoveryCircle(centre: centre(&rng, corpus), radiusMetres: radiusMetres)
            filter.text = rng.pick(corpus.commonQueries)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "themes") { rng, _ in
            var filter = DiscoveryFilter()
            filter.themes = themes(Int.random(in: 1...3, using: &rng), &rng)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "price_currency") { rng, _ in
            var filter = DiscoveryFilter()
            filter.currency = rng.chance(0.7) ? .eur : rng.chance(0.66) ? .usd : .gbp
            let low = Int64(Int.random(in: 1...6, using: &rng) * 500)
            filter.minPriceMinor = low
            filter.maxPriceMinor = low + Int64(Int.random(in: 1...4, using: &rng) * 500)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "free") { _, _ in
            var filter = DiscoveryFilter()
            filter.freeOnly = true
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "duration") { rng, _ in
            var filter = DiscoveryFilter()
            let low = Int.random(in: 2...12, using: &rng) * 15
            filter.minMinutes = low
            filter.maxMinutes = low + Int.random(in: 2...6, using: &rng) * 15
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "language") { rng, _ in
            var filter = DiscoveryFilter()
            filter.language = languageQueries[rng.weightedIndex(languageQueryWeights)]
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "mode_bike") { _, _ in
            var filter = DiscoveryFilter()
            filter.mode = .bike
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "text_common") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.text = rng.pick(corpus.commonQueries)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "text_rare") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.text = rng.pick(corpus.rareNames)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "text_prefix") { rng, corpus in
            var filter = DiscoveryFilter()
            filter.text = prefix(&rng, corpus)
            return DiscoveryQuery(filter: filter)
        },
        SearchCombination(name: "sort_newest") { _, _ in DiscoveryQuery(sort: .newest) },
        SearchCombination(name: "sort_price") { _, _ in DiscoveryQuery(sort: .price) },
        SearchCombination(name: "page3_popularity", pagesBefore: 2) { rng, _ in
            var filter = DiscoveryFilter()
            filter.themes = themes(1, &rng)
            return DiscoveryQuery(filter: filter, sort: .popularity)
        },
    ]

    /// A destination, drawn by its number of tours (search traffic follows supply).
    static func destination(_ rng: inout SeededGenerator, _ corpus: TourCorpus) -> BenchDestination {
        corpus.destinations[rng.weightedIndex(corpus.destinationWeights)]
    }

    /// A point within 2 km of a destination's centre.
    static func centre(_ rng: inout SeededGenerator, _ corpus: TourCorpus) -> Coordinate {
        destination(&rng, corpus).city.coordinate.destination(bearing: Double.random(in: 0..<360, using: &rng),
                                                               distance: Double.random(in: 0...2_000, using: &rng))
    }

    /// `count` distinct themes, each equally likely (travellers pick rare themes too).
    static func themes(_ count: Int, _ rng: inout SeededGenerator) -> Set<TourTheme> {
        var themes = Set<TourTheme>()
        while themes.count < count { themes.insert(rng.pick(TourTheme.allCases)) }
        return themes
    }

    /// The first 2 or 3 letters of a word (≥ 4 letters) of a random tour's title or stop names, as typed.
    static func prefix(_ rng: inout SeededGenerator, _ corpus: TourCorpus) -> String {
        while true {
            let event = rng.pick(corpus.events)
            let text = ([event.details.title] + event.stops.map(\.name)).joined(separator: " ")
            let words = text.split { !$0.isLetter }.filter { $0.count >= 4 }
            guard !words.isEmpty else { continue }
            return String(rng.pick(words).prefix(Int.random(in: 2...3, using: &rng))).lowercased()
        }
    }

    static func make(corpus: TourCorpus, perCombination: Int, warmup: Int, seed: UInt64, only: Set<String>) -> TourSearchMix {
        var rng = SeededGenerator(seed: seed ^ 0x5EA7_C4E5)
        let combinations = all.filter { only.isEmpty || only.contains($0.name) }
        func draw(_ count: Int) -> [SearchSpec] {
            var specs: [SearchSpec] = []
            for (index, combination) in combinations.enumerated() {
                for _ in 0..<count { specs.append(SearchSpec(combination: index, query: combination.make(&rng, corpus))) }
            }
            return specs.shuffled(using: &rng)
        }
        let warm = draw(warmup)
        return TourSearchMix(combinations: combinations, warmup: warm, timed: draw(perCombination))
    }

    /// Runs the mix against `catalog`: cursors first (untimed), then the warm-up, then the timed queries.
    func run(_ catalog: TourCatalog, backend: String, logger: Logger) async throws -> BackendSearchFigures {
        let warmup = try await withCursors(self.warmup, catalog)
        let timed = try await withCursors(self.timed, catalog)
        for spec in warmup { _ = try await catalog.search(spec.query) }

        var latencies = Array(repeating: Latencies(resolution: 0.001), count: combinations.count)
        var hits = Array(repeating: 0, count: combinations.count)
        var empty = Array(repeating: 0, count: combinations.count)
        var all = Latencies(resolution: 0.001)
        let clock = ContinuousClock()
        let started = clock.now
        for spec in timed {
            let t0 = clock.now
            let page = try await catalog.search(spec.query)
            let elapsed = clock.now - t0
            latencies[spec.combination].record(elapsed)
            all.record(elapsed)
            hits[spec.combination] += page.hits.count
            if page.hits.isEmpty { empty[spec.combination] += 1 }
        }
        logger.info("\(backend): \(timed.count) timed queries in \(secondsText(clock.now - started)) s; all: \(all)")
        var figures: [String: CombinationFigures] = [:]
        for (index, combination) in combinations.enumerated() {
            let count = latencies[index].milliseconds.count
            let averageHits = count == 0 ? 0 : Double(hits[index]) / Double(count)
            let p99 = latencies[index].percentile(0.99)
            let slowest = latencies[index].milliseconds.sorted(by: >).prefix(3).map { String(format: "%.1f", $0) }
            logger.info("""
                \(backend): \(combination.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(latencies[index]); \
                slowest \(slowest.joined(separator: "/")) ms; hits/page \(String(format: "%.1f", averageHits)), \
                empty pages \(empty[index])\(p99 > 5 ? "  ← p99 over 5 ms" : "")
                """)
            figures[combination.name] = CombinationFigures(latencies: latencies[index], hits: averageHits)
        }
        return BackendSearchFigures(all: all, combinations: figures)
    }

    /// `specs` with the cursor of their page set: the pages before it are fetched (untimed) now.
    private func withCursors(_ specs: [SearchSpec], _ catalog: TourCatalog) async throws -> [SearchSpec] {
        var result = specs
        for index in result.indices where combinations[result[index].combination].pagesBefore > 0 {
            var query = result[index].query
            for page in 1...combinations[result[index].combination].pagesBefore {
                guard let next = try await catalog.search(query).nextCursor else {
                    throw BenchError("\(combinations[result[index].combination].name): page \(page) has no next page")
                }
                query.cursor = next
            }
            result[index].query = query
        }
        return result
    }
}

/// One combination's figures: `{"p50", "p99", "hits"}` (ms to 0.001; hits = average hits per page, at most the limit).
struct CombinationFigures: Encodable, Sendable {
    var latencies: Latencies
    var hits: Double

    private enum CodingKeys: String, CodingKey {
        case p50, p99, hits
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode((latencies.percentile(0.50) * 1_000).rounded() / 1_000, forKey: .p50)
        try container.encode((latencies.percentile(0.99) * 1_000).rounded() / 1_000, forKey: .p99)
        try container.encode((hits * 10).rounded() / 10, forKey: .hits)
    }
}

/// One backend: `{"search_ms": {"p50", "p99"}, "combinations": {name: {"p50", "p99", "hits"}}}`.
struct BackendSearchFigures: Encodable, Sendable {
    var all: Latencies
    var combinations: [String: CombinationFigures]

    private enum CodingKeys: String, CodingKey {
        case all = "search_ms", combinations
    }
}

/// The whole `tours` report; `postgres` is `null` when no server was configured.
struct TourSearchReport: Encodable, Sendable {
    var tours: Int
    var stops: Int
    var sqlite: BackendSearchFigures
    var postgres: BackendSearchFigures?

    private enum CodingKeys: String, CodingKey {
        case tours, stops, sqlite, postgres
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tours, forKey: .tours)
        try container.encode(stops, forKey: .stops)
        try container.encode(sqlite, forKey: .sqlite)
        // `encode` (not `encodeIfPresent`) so that an absent backend reads as an explicit null.
        try container.encode(postgres, forKey: .postgres)
    }
}

/// A duration for the progress log: seconds to 0.01.
func secondsText(_ duration: Duration) -> String {
    String(format: "%.2f", duration.seconds)
}
