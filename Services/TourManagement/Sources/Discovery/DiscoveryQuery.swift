import Contracts
import Foundation
import Geo
import ServiceKit

/// How `GET /v1/tours` orders its answer.
public enum DiscoverySort: String, Codable, Sendable, CaseIterable {
    /// Full-text rank of `q` (needs `q`; the default when `q` is given).
    case relevance
    /// Bayesian average rating, best first.
    case rating
    /// Completed purchases and acquisitions, most first (the default without `q` or `near`).
    case popularity
    /// Distance of the tour's first stop from `near`, nearest first (needs `near`; the default with `near` and no `q`).
    case distance
    /// Price in the tour's own minor units, cheapest first.
    case price
    /// First publication, newest first.
    case newest
}

/// A point and a radius around it.
public struct DiscoveryCircle: Sendable, Hashable {
    public var centre: Coordinate
    public var radiusMetres: Double

    public init(centre: Coordinate, radiusMetres: Double) {
        self.centre = centre
        self.radiusMetres = radiusMetres
    }
}

/// Which published tours a search wants. Every field narrows the answer; `nil` or empty means "any".
public struct DiscoveryFilter: Sendable, Hashable {
    public var destinationId: Int64?
    public var near: DiscoveryCircle?
    /// A tour matches when it has **any** of these themes.
    public var themes: Set<TourTheme> = []
    /// Inclusive price bounds in minor units of `currency` (`priceCurrency` in the query; a price bound needs one: minor
    /// units of different currencies do not compare).
    public var minPriceMinor: Int64?
    public var maxPriceMinor: Int64?
    /// Only tours priced in this currency.
    public var currency: CurrencyCode?
    public var freeOnly = false
    /// Inclusive bounds on the guide's estimated duration, minutes.
    public var minMinutes: Int?
    public var maxMinutes: Int?
    /// Minimum average rating (1–5): tours without ratings do not match.
    public var minRating: Double?
    /// Primary language subtag, lower case (`de` matches tours in `de-AT`).
    public var language: String?
    public var mode: TourMode?
    /// Full-text query over title, description and stop names.
    public var text: String?

    public init() {}

    /// The themes as a bit mask (bit *n* = `TourTheme.allCases[n]`), as stored in the read model.
    var themeMask: Int64 { DiscoveryFilter.mask(themes) }

    static func mask(_ themes: some Sequence<TourTheme>) -> Int64 {
        themes.reduce(0) { mask, theme in mask | (1 << Int64(TourTheme.allCases.firstIndex(of: theme)!)) }
    }
}

/// One page request: filter, order, position and size.
public struct DiscoveryQuery: Sendable, Hashable {
    public static let defaultLimit = 10
    public static let maximumLimit = 50
    public static let radiusKmRange: ClosedRange<Double> = 0.1...200
    public static let defaultRadiusKm = 25.0

    public var filter: DiscoveryFilter
    public var sort: DiscoverySort
    public var cursor: DiscoveryCursor?
    public var limit: Int

    public init(filter: DiscoveryFilter = DiscoveryFilter(), sort: DiscoverySort? = nil, cursor: DiscoveryCursor? = nil,
                limit: Int = DiscoveryQuery.defaultLimit) {
        self.filter = filter
        self.sort = sort ?? (filter.text != nil ? .relevance : filter.near != nil ? .distance : .popularity)
        self.cursor = cursor
        self.limit = limit
    }

    /// Parses and validates the query parameters of `GET /v1/tours`; every broken rule is one field error of one 422.
    /// `knownDestination` answers whether a destination id exists.
    public static func parse(_ parameters: [String: String], knownDestination: (Int64) -> Bool) throws -> DiscoveryQuery {
        var validator = Validator()
        var filter = DiscoveryFilter()
        func number<T: LosslessStringConvertible>(_ name: String, as _: T.Type) -> T? {
            guard let raw = parameters[name] else { return nil }
            guard let value = T(raw.trimmingCharacters(in: .whitespaces)) else {
                validator.require(false, field: name, code: "not-a-number", message: "must be a number")
                return nil
            }
            return value
        }
        if let id = number("destinationId", as: Int64.self) {
            validator.require(knownDestination(id), field: "destinationId", code: "unknown-destination", message: "is not a known destination")
            filter.destinationId = id
        }
        if let raw = parameters["near"] {
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 2, let lat = parts[0], let lng = parts[1], let centre = try? Coordinate(latitude: lat, longitude: lng) {
                let radius = number("radiusKm", as: Double.self) ?? defaultRadiusKm
                validator.range(radius, field: "radiusKm", radiusKmRange)
                filter.near = DiscoveryCircle(centre: centre, radiusMetres: radius * 1_000)
            } else {
                validator.require(false, field: "near", code: "invalid-coordinates",
                                  message: "must be lat,lng with a latitude between -90 and 90 and a longitude between -180 and 180")
            }
        } else if parameters["radiusKm"] != nil {
            validator.require(false, field: "radiusKm", code: "needs-near", message: "is only allowed together with near")
        }
        if let raw = parameters["themes"] {
            for name in raw.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if let theme = TourTheme(rawValue: name) {
                    filter.themes.insert(theme)
                } else {
                    validator.oneOf(name, field: "themes", allowed: TourTheme.allCases.map(\.rawValue))
                }
            }
        }
        filter.minPriceMinor = number("minPrice", as: Int64.self)
        filter.maxPriceMinor = number("maxPrice", as: Int64.self)
        validator.range(filter.minPriceMinor, field: "minPrice", 0...Int64.max)
        validator.range(filter.maxPriceMinor, field: "maxPrice", 0...Int64.max)
        if let code = parameters["priceCurrency"] {
            filter.currency = CurrencyCode(code)
            validator.require(filter.currency != nil, field: "priceCurrency", code: "unsupported-currency",
                              message: "must be an active ISO 4217 currency code such as EUR")
        } else if filter.minPriceMinor != nil || filter.maxPriceMinor != nil {
            validator.require(false, field: "priceCurrency", code: "required",
                              message: "is required with minPrice or maxPrice (minor units of different currencies do not compare)")
        }
        if let raw = parameters["free"] {
            validator.require(raw == "true" || raw == "false", field: "free", code: "not-a-boolean", message: "must be true or false")
            filter.freeOnly = raw == "true"
        }
        filter.minMinutes = number("minDuration", as: Int.self)
        filter.maxMinutes = number("maxDuration", as: Int.self)
        validator.range(filter.minMinutes, field: "minDuration", 0...10_080)
        validator.range(filter.maxMinutes, field: "maxDuration", 0...10_080)
        if let low = filter.minPriceMinor, let high = filter.maxPriceMinor {
            validator.require(low <= high, field: "maxPrice", code: "below-minimum", message: "must not be below minPrice")
        }
        if let low = filter.minMinutes, let high = filter.maxMinutes {
            validator.require(low <= high, field: "maxDuration", code: "below-minimum", message: "must not be below minDuration")
        }
        filter.minRating = number("minRating", as: Double.self)
        validator.range(filter.minRating, field: "minRating", 1...5)
        if let language = parameters["language"] {
            validator.languageTag(language, field: "language")
            filter.language = DiscoveryText.primaryLanguage(language)
        }
        if let raw = parameters["mode"] {
            filter.mode = TourMode(rawValue: raw)
            validator.oneOf(raw, field: "mode", allowed: TourMode.allCases.map(\.rawValue))
        }
        if let q = parameters["q"] {
            let trimmed = q.trimmingCharacters(in: .whitespacesAndNewlines)
            validator.length(trimmed, field: "q", min: 1, max: 200)
            validator.require(trimmed.isEmpty || !DiscoveryText.terms(trimmed).isEmpty, field: "q", code: "no-terms",
                              message: "must contain at least one letter or digit")
            filter.text = trimmed.isEmpty ? nil : trimmed
        }
        var sort: DiscoverySort?
        if let raw = parameters["sort"] {
            sort = DiscoverySort(rawValue: raw)
            validator.oneOf(raw, field: "sort", allowed: DiscoverySort.allCases.map(\.rawValue))
            if sort == .relevance {
                validator.require(filter.text != nil, field: "sort", code: "needs-q", message: "relevance needs a q to rank by")
            }
            if sort == .distance {
                validator.require(filter.near != nil, field: "sort", code: "needs-near", message: "distance needs near")
            }
        }
        let limit = number("limit", as: Int.self) ?? defaultLimit
        validator.range(limit, field: "limit", 1...maximumLimit)
        var query = DiscoveryQuery(filter: filter, sort: sort, limit: limit)
        if let raw = parameters["cursor"] {
            query.cursor = DiscoveryCursor(encoded: raw)
            validator.require(query.cursor?.sort == query.sort, field: "cursor", code: "invalid-cursor",
                              message: "is not a cursor of this search (cursors come from nextCursor and keep their sort)")
        }
        try validator.check()
        return query
    }
}

/// Where the next page starts: after the row with sort key `key` and tie-breaker `tourId` (keyset pagination), or, for
/// relevance (a rank computed per query), after `offset` rows.
public struct DiscoveryCursor: Sendable, Hashable, Codable {
    public var sort: DiscoverySort
    public var key: Double?
    public var tourId: UUID?
    public var offset: Int?

    public init(sort: DiscoverySort, key: Double? = nil, tourId: UUID? = nil, offset: Int? = nil) {
        self.sort = sort
        self.key = key
        self.tourId = tourId
        self.offset = offset
    }

    /// The opaque form clients send back (base64url JSON).
    public var encoded: String {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return Base64URL.encode(data)
    }

    public init?(encoded: String) {
        guard let data = Base64URL.decode(encoded), let cursor = try? JSONDecoder().decode(DiscoveryCursor.self, from: data),
              cursor.offset.map({ $0 >= 0 && $0 <= 100_000 }) ?? (cursor.key != nil && cursor.tourId != nil)
        else { return nil }
        self = cursor
    }
}

/// How text is prepared for full-text search, identically on both backends: folded like destination names (case and
/// diacritics), split into runs of letters and digits.
public enum DiscoveryText {
    /// The folded, searchable form of a text.
    public static func folded(_ text: String) -> String {
        DestinationName.key(text)
    }

    /// The folded search terms of a query (at most 16).
    public static func terms(_ query: String) -> [String] {
        Array(folded(query).split { !($0.isLetter || $0.isNumber) }.map(String.init).prefix(16))
    }

    /// Every distinct folded word of a text (the vocabulary the term statistics count).
    public static func vocabulary(_ text: String) -> Set<String> {
        Set(folded(text).split { !($0.isLetter || $0.isNumber) }.map(String.init))
    }

    /// A vocabulary as the read models store it for word probes: sorted, space-separated, with a space at both ends
    /// (` castle old walk `), so that `' walk '` finds a word and `' wa'` a word beginning with "wa".
    public static func wordList(_ vocabulary: Set<String>) -> String {
        " " + vocabulary.sorted().joined(separator: " ") + " "
    }

    /// The vocabulary of a stored ``wordList(_:)``.
    public static func vocabulary(wordList: String) -> Set<String> {
        Set(wordList.split(separator: " ").map(String.init))
    }

    /// What a stored ``wordList(_:)`` must contain for a tour to match `query` with the meaning of ``fts5Query(_:)``:
    /// `' term '` for every word but the last, `' prefix'` for the last (search as you type).
    static func wordProbes(_ query: String) -> [String] {
        let terms = terms(query)
        return terms.enumerated().map { index, term in " " + term + (index == terms.count - 1 ? "" : " ") }
    }

    /// `de-AT` → `de`.
    public static func primaryLanguage(_ tag: String) -> String {
        String(tag.split(separator: "-").first ?? Substring(tag)).lowercased()
    }

    /// An FTS5 query: every term must occur; the last one may be a prefix (search as you type).
    static func fts5Query(_ query: String) -> String {
        let terms = terms(query)
        return terms.enumerated().map { index, term in "\"\(term)\"" + (index == terms.count - 1 ? "*" : "") }.joined(separator: " ")
    }

    /// A PostgreSQL `to_tsquery('simple', …)` text with the same meaning as ``fts5Query(_:)``.
    static func tsQuery(_ query: String) -> String {
        let terms = terms(query)
        return terms.enumerated().map { index, term in "'\(term)'" + (index == terms.count - 1 ? ":*" : "") }.joined(separator: " & ")
    }
}
