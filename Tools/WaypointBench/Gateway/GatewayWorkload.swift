import Foundation
import TourManagement

/// The three kinds of request of the gateway mix.
enum RequestKind: Int, CaseIterable, Sendable {
    /// `GET /v1/tours?…`: a filter combination of the `tours` benchmark.
    case search
    /// `GET /v1/tours/{id}` of a known tour.
    case detail
    /// `GET /v1/destinations?prefix=…`.
    case destinations

    var name: String {
        switch self {
        case .search: "search"
        case .detail: "detail"
        case .destinations: "destinations"
        }
    }
}

extension PlannedRequest {
    /// A `GET` of the gateway mix.
    init(target: Int, path: String, kind: RequestKind) {
        self.init(target: target, path: path, kind: kind.rawValue)
    }

    /// The kind of the gateway mix this request is.
    var requestKind: RequestKind { RequestKind(rawValue: kind) ?? .search }
}

/// The read mix of the gateway benchmark, drawn from the generated catalogue: tour search 60 %, tour detail 30 %,
/// destination prefix search 10 %, as the paths a mobile client would request.
struct GatewayWorkload: Sendable {
    let corpus: TourCorpus
    /// Gazetteer cities (all of them): destination prefixes are typed for any place, not only those with tours.
    let cities: [City]

    /// Shares of the mix, in the order of ``RequestKind/allCases``.
    static let shares: [Double] = [0.6, 0.3, 0.1]
    /// The search combinations of the `tours` benchmark a single request can express (no "third page": that needs
    /// the cursors of the two pages before it).
    static let searches = TourSearchMix.all.filter { $0.pagesBefore == 0 }

    /// `count` requests to `target`, drawn with `seed`: the same seed gives the same paths in the same order.
    func plan(count: Int, target: Int, seed: UInt64) -> [PlannedRequest] {
        var rng = SeededGenerator(seed: seed)
        let kinds = cumulativeWeights(Self.shares)
        return (0..<count).map { _ in
            let kind = RequestKind.allCases[rng.weightedIndex(kinds)]
            return PlannedRequest(target: target, path: path(kind, &rng), kind: kind)
        }
    }

    private func path(_ kind: RequestKind, _ rng: inout SeededGenerator) -> String {
        switch kind {
        case .search:
            let combination = rng.pick(Self.searches)
            return Self.path(combination.make(&rng, corpus))
        case .detail:
            // Uniform over the catalogue: the least cache-friendly choice (real traffic favours popular tours).
            return "/v1/tours/\(rng.pick(corpus.events).tourId.uuidString.lowercased())"
        case .destinations:
            // As typed: 2–6 letters of a destination with tours (70 %) or of any gazetteer city.
            let name = rng.chance(0.7) ? TourSearchMix.destination(&rng, corpus).city.name : rng.pick(cities).name
            let prefix = String(name.prefix(Int.random(in: 2...6, using: &rng)))
            return "/v1/destinations?prefix=\(Self.encoded(prefix))&limit=10"
        }
    }

    /// `GET /v1/tours` with the parameters that express `query` (the inverse of `DiscoveryQuery.parse`); the sort only
    /// when it is not the one the filter implies.
    static func path(_ query: DiscoveryQuery) -> String {
        let filter = query.filter
        var items: [(String, String)] = []
        if let id = filter.destinationId { items.append(("destinationId", String(id))) }
        if let near = filter.near {
            items.append(("near", String(format: "%.5f,%.5f", near.centre.latitude, near.centre.longitude)))
            items.append(("radiusKm", String(format: "%g", near.radiusMetres / 1_000)))
        }
        if !filter.themes.isEmpty { items.append(("themes", filter.themes.map(\.rawValue).sorted().joined(separator: ","))) }
        if let low = filter.minPriceMinor { items.append(("minPrice", String(low))) }
        if let high = filter.maxPriceMinor { items.append(("maxPrice", String(high))) }
        if let currency = filter.currency { items.append(("priceCurrency", currency.code)) }
        if filter.freeOnly { items.append(("free", "true")) }
        if let low = filter.minMinutes { items.append(("minDuration", String(low))) }
        if let high = filter.maxMinutes { items.append(("maxDuration", String(high))) }
        if let rating = filter.minRating { items.append(("minRating", String(rating))) }
        if let language = filter.language { items.append(("language", language)) }
        if let mode = filter.mode { items.append(("mode", mode.rawValue)) }
        if let text = filter.text { items.append(("q", text)) }
        if query.sort != DiscoveryQuery(filter: filter).sort { items.append(("sort", query.sort.rawValue)) }
        if query.limit != DiscoveryQuery.defaultLimit { items.append(("limit", String(query.limit))) }
        let parameters = items.map { "\($0.0)=\(encoded($0.1))" }.joined(separator: "&")
        return parameters.isEmpty ? "/v1/tours" : "/v1/tours?\(parameters)"
    }

    /// Characters a query value may carry unescaped (RFC 3986 unreserved, plus the comma of lists and coordinates).
    private static let queryValueCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,")

    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? value
    }
}
