import Contracts
import EventSourcing
import Foundation
import Geo
import GRDB

/// ``TourCatalogStore`` in the embedded SQLite database: FTS5 `tour_text`, R*Tree `tour_start`, `tour_words`,
/// `tour_terms` and `tour_language` beside `tour_search` (``SQLiteDiscoveryProjection``). Queries are GRDB `SQL`
/// literals: values are bound where they are interpolated.
public struct SQLiteTourCatalogStore: TourCatalogStore {
    let database: SQLiteServiceDatabase

    /// The reads of `database`'s discovery read model.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func tour(_ id: UUID, includeUnlisted: Bool) async throws -> PublishedTour? {
        try await database.read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT s.*, d.document FROM tour_search s JOIN tour_document d ON d.doc_id = s.doc_id WHERE s.tour_id = ?"
                                + (includeUnlisted ? "" : " AND s.listed = 1")), arguments: [id.uuidString.lowercased()])
                .map(SQLiteDiscoveryProjection.tour)
        }
    }

    public func listedTours(_ ids: [UUID]) async throws -> [PublishedTour] {
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let arguments = StatementArguments(ids.map { $0.uuidString.lowercased() })
        return try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM tour_search WHERE listed = 1 AND tour_id IN (\(placeholders))", arguments: arguments)
                .map(SQLiteDiscoveryProjection.hit)
        }
    }

    public func popularityByDestination() async throws -> [Int64: Int] {
        try await database.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT destination_id, sum(popularity) FROM tour_search WHERE listed = 1 GROUP BY destination_id HAVING sum(popularity) > 0
                """).map { ($0[0] as Int64, $0[1] as Int) })
        }
    }

    public func estimatedMatches(exact: [String], prefix: String) async throws -> Int {
        try await database.read { db in
            var best = try Int.fetchOne(try db.cachedStatement(sql: "SELECT coalesce(sum(docs), 0) FROM tour_terms WHERE term >= ? AND term < ?"),
                                        arguments: [prefix, prefix + "\u{10FFFF}"]) ?? 0
            for term in exact {
                best = min(best, try Int.fetchOne(try db.cachedStatement(sql: "SELECT docs FROM tour_terms WHERE term = ?"), arguments: [term]) ?? 0)
            }
            return best
        }
    }

    public func search(_ search: DiscoverySearch) async throws -> (rows: [DiscoveryRow], hasMore: Bool) {
        var conditions = Self.conditions(search.filter, commonLanguage: try await languageIsCommon(search.filter.language))
        let distance = search.filter.near.map { Self.distance(from: $0.centre) }
        var from: SQL = "tour_search s"
        switch search.text {
        case .ranked(let text)?:
            from = "tour_search s JOIN tour_text ON tour_text.rowid = s.doc_id"
            conditions.append("tour_text MATCH \(DiscoveryText.fts5Query(text))")
        case .probed(let text)?:
            // Many matches: walk the sort's index and probe each tour's words (a rowid lookup in the narrow `tour_words`
            // and a substring test, ~1 µs) until the page is full. Collecting the FTS5 matches first costs ~0.5 µs per
            // match (thousands for a common word or a short prefix), and a correlated FTS5 probe re-reads the term's
            // doclist per row. CROSS JOIN keeps `tour_search` the outer loop.
            from = "tour_search s CROSS JOIN tour_words w ON w.doc_id = s.doc_id"
            for probe in DiscoveryText.wordProbes(text) { conditions.append("instr(w.words, \(probe)) > 0") }
        case nil:
            break
        }
        let key = Self.key(search.order, distance: distance)
        if let after = search.after {
            let operation: SQL = search.order.descending ? "<" : ">"
            conditions.append("(\(key) \(operation) \(after.key) OR (\(key) = \(after.key) AND s.tour_id > \(after.tourId.uuidString.lowercased())))")
        }
        // A computed key is sorted by its result column, so that it is computed once per row.
        let orderBy: SQL = search.order.isComputed ? "sort_key" : key
        let direction: SQL = search.order.descending ? "DESC" : "ASC"
        let query: SQL = """
            SELECT s.*, (\(key)) AS sort_key, \(distance ?? SQL(sql: "NULL")) AS distance FROM \(from)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(orderBy) \(direction), s.tour_id LIMIT \(Int64(search.limit + 1)) OFFSET \(Int64(search.offset))
            """
        let limit = search.limit
        return try await database.read { db in
            let all = try Row.fetchAll(db, SQLRequest<Row>(literal: query, cached: true))
            return (try all.prefix(limit).map {
                DiscoveryRow(tour: try SQLiteDiscoveryProjection.hit($0), sortKey: $0["sort_key"], distance: $0["distance"])
            }, all.count > limit)
        }
    }

    public func markers(in box: BoundingBox, filter: DiscoveryFilter, limit: Int) async throws -> [TourMarker] {
        var conditions = Self.conditions(filter, commonLanguage: try await languageIsCommon(filter.language))
        conditions.append("s.start_lat BETWEEN \(box.south) AND \(box.north)")
        conditions.append(box.crossesAntimeridian ? "(s.start_lng >= \(box.west) OR s.start_lng <= \(box.east))"
                                                  : "s.start_lng BETWEEN \(box.west) AND \(box.east)")
        let query: SQL = """
            SELECT s.tour_id, s.title, s.start_lat, s.start_lng FROM tour_search s WHERE \(conditions.joined(separator: " AND "))
             ORDER BY s.tour_id LIMIT \(Int64(limit))
            """
        return try await database.read { db in
            try Row.fetchAll(db, SQLRequest<Row>(literal: query, cached: true)).map {
                TourMarker(tourId: UUID(uuidString: $0["tour_id"])!, title: $0["title"], start: LatLng(lat: $0["start_lat"], lng: $0["start_lng"]))
            }
        }
    }

    /// The sort key of `order` (`distance`: the search's distance expression, if it has a centre).
    static func key(_ order: DiscoveryOrder, distance: SQL?) -> SQL {
        switch order {
        case .textRank: SQL(sql: "bm25(tour_text, 10.0, 1.0, 4.0)")
        case .rating: SQL(sql: "s.rating_bayes")
        case .popularity: SQL(sql: "s.popularity")
        case .distance: distance ?? SQL(sql: "0")
        case .price: SQL(sql: "s.price_minor")
        case .newest: SQL(sql: "s.first_published_at_us")
        }
    }

    /// Whether more than 500 tours are in `language`: SQLite plans the language condition by it.
    func languageIsCommon(_ language: String?) async throws -> Bool {
        guard let language else { return true }
        return try await database.read { db in
            (try Int.fetchOne(try db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM tour_language WHERE lang = ? LIMIT 501)"),
                              arguments: [language]) ?? 0) > 500
        }
    }

    /// The WHERE conditions of `filter` except its text. `commonLanguage`: whether `filter.language` is one of many
    /// tours (``languageIsCommon(_:)``).
    static func conditions(_ filter: DiscoveryFilter, commonLanguage: Bool) -> [SQL] {
        var conditions: [SQL] = ["s.listed = 1"]
        if let destination = filter.destinationId { conditions.append("s.destination_id = \(destination)") }
        if let circle = filter.near {
            // R*Tree box prefilter, then the exact great-circle distance (the same formula as on PostgreSQL).
            let box = BoundingBox(covering: [circle.centre])!.expanded(by: circle.radiusMetres + 10)
            let lng: SQL = box.crossesAntimeridian ? "(max_lng >= \(box.west) OR min_lng <= \(box.east))"
                                                   : "max_lng >= \(box.west) AND min_lng <= \(box.east)"
            conditions.append("s.doc_id IN (SELECT id FROM tour_start WHERE max_lat >= \(box.south) AND min_lat <= \(box.north) AND \(lng))")
            conditions.append("\(distance(from: circle.centre)) <= \(circle.radiusMetres)")
        }
        if !filter.themes.isEmpty { conditions.append("(s.theme_mask & \(filter.themeMask)) <> 0") }
        // `+` keeps the planner from driving a query by the price index (then sorting thousands of rows by popularity):
        // walking the sort's index and testing the price finds a page after a few dozen rows.
        if let currency = filter.currency { conditions.append("+s.currency = \(currency.code)") }
        if let low = filter.minPriceMinor { conditions.append("+s.price_minor >= \(low)") }
        if let high = filter.maxPriceMinor { conditions.append("+s.price_minor <= \(high)") }
        if filter.freeOnly { conditions.append("+s.price_minor = 0") }
        if let low = filter.minMinutes { conditions.append("s.estimated_minutes >= \(Int64(low))") }
        if let high = filter.maxMinutes { conditions.append("s.estimated_minutes <= \(Int64(high))") }
        if let rating = filter.minRating { conditions.append("s.rating_avg >= \(rating)") }
        if let language = filter.language {
            // Common languages: walk the sort's index and probe (lang, doc_id); rare ones: start from their few tours.
            conditions.append(commonLanguage ? "EXISTS (SELECT 1 FROM tour_language l WHERE l.lang = \(language) AND l.doc_id = s.doc_id)"
                                             : "s.doc_id IN (SELECT doc_id FROM tour_language WHERE lang = \(language))")
        }
        if let mode = filter.mode { conditions.append("s.mode = \(mode.rawValue)") }
        return conditions
    }

    /// Haversine distance in metres from `centre` to the row's first stop, on the sphere of `Earth.meanRadius`.
    static func distance(from centre: Coordinate) -> SQL {
        let lat = centre.latitude * .pi / 180, lng = centre.longitude * .pi / 180
        let haversine: SQL = """
            power(sin((radians(s.start_lat) - \(lat)) / 2), 2) + \(cos(lat)) * cos(radians(s.start_lat)) \
            * power(sin((radians(s.start_lng) - \(lng)) / 2), 2)
            """
        return "(\(sql: "\(2 * Earth.meanRadius)") * asin(sqrt(min(1.0, \(haversine)))))"
    }
}
