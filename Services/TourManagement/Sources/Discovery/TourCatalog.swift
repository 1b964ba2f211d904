import Contracts
import EventSourcing
import Foundation
import Geo
import GRDB
import PostgresNIO

/// One search hit: the tour, and its distance from `near` when the search had one.
public struct DiscoveryHit: Sendable, Hashable {
    public var tour: PublishedTour
    public var distanceMetres: Double?
}

/// One page of search hits; `nextCursor` is `nil` on the last page.
public struct DiscoveryPage: Sendable, Hashable {
    public var hits: [DiscoveryHit]
    public var nextCursor: DiscoveryCursor?
}

/// A tour's marker on the map: where it starts.
public struct TourMarker: Sendable, Hashable {
    public var tourId: UUID
    public var title: String
    public var start: LatLng

    public init(tourId: UUID, title: String, start: LatLng) {
        self.tourId = tourId
        self.title = title
        self.start = start
    }
}

/// Reads of the discovery read model, whichever backend: one query builder writes the SQL for both dialects, so a
/// filter means the same on SQLite and PostgreSQL (the conformance suite runs the same searches against both).
public struct TourCatalog: Sendable {
    let sqlite: SQLiteServiceDatabase?
    let postgres: PostgresServiceDatabase?
    /// See ``broadQueryMatches``.
    let broadThreshold: Int

    public init(sqlite: SQLiteServiceDatabase?, postgres: PostgresServiceDatabase?, broadQueryMatches: Int = TourCatalog.broadQueryMatches) {
        self.sqlite = sqlite
        self.postgres = postgres
        broadThreshold = broadQueryMatches
    }

    /// The rows of `query` on PostgreSQL (the backend when there is no SQLite database).
    private func postgresRows(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        guard let postgres else { preconditionFailure("TourCatalog has neither a SQLite nor a PostgreSQL database") }
        return try await postgres.client.query(query, logger: postgres.logger)
    }

    /// The same catalog with another broad-query threshold (tests).
    public func withBroadQueryMatches(_ matches: Int) -> TourCatalog {
        TourCatalog(sqlite: sqlite, postgres: postgres, broadQueryMatches: matches)
    }

    /// The last published revision of a tour: only while listed, unless `includeUnlisted` (travellers who bought a tour
    /// keep using it after its guide unpublished it).
    public func tour(_ id: UUID, includeUnlisted: Bool = false) async throws -> PublishedTour? {
        if let sqlite {
            return try await sqlite.read { db in
                try Row.fetchOne(try db.cachedStatement(sql: "SELECT s.*, d.document FROM tour_search s JOIN tour_document d ON d.doc_id = s.doc_id WHERE s.tour_id = ?"
                                    + (includeUnlisted ? "" : " AND s.listed = 1")), arguments: [id.uuidString.lowercased()])
                    .map(SQLiteDiscoveryProjection.tour)
            }
        }
        let listed = includeUnlisted ? "" : " AND listed"
        let query: PostgresQuery = """
            SELECT \(unescaped: PostgresDiscoveryProjection.columns), document FROM tour_search WHERE tour_id = \(id)\(unescaped: listed)
            """
        for try await row in try await postgresRows(query) {
            return try PostgresDiscoveryProjection.tour(row)
        }
        return nil
    }

    /// Completed purchases and acquisitions of listed tours, per destination.
    public func popularityByDestination() async throws -> [Int64: Int] {
        let sql = "SELECT destination_id, sum(popularity) FROM tour_search WHERE listed " + (sqlite != nil ? "= 1 " : "")
            + "GROUP BY destination_id HAVING sum(popularity) > 0"
        if let sqlite {
            return try await sqlite.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: sql).map { ($0[0] as Int64, $0[1] as Int) })
            }
        }
        var result: [Int64: Int] = [:]
        for try await (destination, total) in try await postgresRows("\(unescaped: sql)")
            .decode((Int64, Int64).self) {
            result[destination] = Int(total)
        }
        return result
    }

    /// Above this many (estimated) matches a relevance search orders its matches by popularity instead of by text rank:
    /// words that many tours contain say little about which tour is meant, and ranking every match is what makes a
    /// search slow (~0.6 µs per match for FTS5's bm25, ~2 µs for PostgreSQL's heap fetch + `ts_rank`: 500 matches stay
    /// near 1 ms). Selective queries (a name, a rare word, several words together) are ranked by text.
    public static let broadQueryMatches = 500

    /// An upper bound of the tours matching `text`: the smallest count of tours containing one of its words (for the
    /// last word, a prefix, the sum over the words it begins), from `tour_terms`.
    public func estimatedMatches(_ text: String) async throws -> Int {
        let terms = DiscoveryText.terms(text)
        guard let last = terms.last else { return 0 }
        let exact = Array(terms.dropLast())
        let upper = last + "\u{10FFFF}"
        if let sqlite {
            return try await sqlite.read { db in
                var best = try Int.fetchOne(try db.cachedStatement(sql: "SELECT coalesce(sum(docs), 0) FROM tour_terms WHERE term >= ? AND term < ?"),
                                            arguments: [last, upper]) ?? 0
                for term in exact {
                    best = min(best, try Int.fetchOne(try db.cachedStatement(sql: "SELECT docs FROM tour_terms WHERE term = ?"), arguments: [term]) ?? 0)
                }
                return best
            }
        }
        let query: PostgresQuery = """
            SELECT least((SELECT coalesce(sum(docs), 0) FROM tour_terms WHERE term >= \(last) AND term < \(upper)),
                         coalesce((SELECT min(coalesce(t.docs, 0)) FROM unnest(\(exact)::text[]) u(term) LEFT JOIN tour_terms t ON t.term = u.term),
                                  2147483647))::bigint
            """
        for try await (count) in try await postgresRows(query).decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Whether more than 500 tours are in `language` (SQLite plans by it).
    func languageIsCommon(_ language: String?) async throws -> Bool {
        guard let language, let sqlite else { return true }
        return try await sqlite.read { db in
            (try Int.fetchOne(try db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM tour_language WHERE lang = ? LIMIT 501)"), arguments: [language]) ?? 0) > 500
        }
    }

    /// One page of a search.
    public func search(_ query: DiscoveryQuery) async throws -> DiscoveryPage {
        let dialect: SQLDialect = sqlite != nil ? .sqlite : .postgres
        var sql = SQLBuilder(dialect: dialect)
        Self.conditions(query.filter, &sql, commonLanguage: try await languageIsCommon(query.filter.language))
        let distance = query.filter.near.map { Self.distanceExpression($0.centre, &sql) }
        var from = "tour_search s"
        var rank: String?
        if let text = query.filter.text {
            let ranked = query.sort == .relevance ? try await estimatedMatches(text) <= broadThreshold : false
            switch dialect {
            case .sqlite where ranked:
                from += " JOIN tour_text ON tour_text.rowid = s.doc_id"
                rank = "bm25(tour_text, 10.0, 1.0, 4.0)"
                sql.conditions.append("tour_text MATCH \(sql.bind(.text(DiscoveryText.fts5Query(text))))")
            case .sqlite:
                // Many matches: walk the sort's index and probe each tour's words (a rowid lookup in the narrow
                // `tour_words` and a substring test, ~1 µs) until the page is full. Collecting the FTS5 matches first
                // costs ~0.5 µs per match (thousands for a common word or a short prefix), and a correlated FTS5 probe
                // re-reads the term's doclist per row. CROSS JOIN keeps `tour_search` the outer loop.
                from += " CROSS JOIN tour_words w ON w.doc_id = s.doc_id"
                for probe in DiscoveryText.wordProbes(text) {
                    sql.conditions.append("instr(w.words, \(sql.bind(.text(probe)))) > 0")
                }
            case .postgres where ranked:
                let tsQuery = "to_tsquery('simple', \(sql.bind(.text(DiscoveryText.tsQuery(text)))))"
                rank = "-ts_rank(s.search, \(tsQuery))"
                sql.conditions.append("s.search @@ \(tsQuery)")
            case .postgres:
                // As on SQLite: the sort's index walked, each row's words probed (`@@` would send the planner to the GIN
                // bitmap of every match, or to a sequential scan).
                for probe in DiscoveryText.wordProbes(text) {
                    sql.conditions.append("strpos(s.words, \(sql.bind(.text(probe)))) > 0")
                }
            }
        }
        // The sort key and its direction; ties are broken by tour id, ascending.
        let (key, descending): (String, Bool) = switch query.sort {
        case .relevance: rank.map { ($0, false) } ?? ("s.popularity", true)
        case .rating: ("s.rating_bayes", true)
        case .popularity: ("s.popularity", true)
        case .distance: (distance ?? "0", false)
        case .price: ("s.price_minor", false)
        case .newest: ("s.first_published_at_us", true)
        }
        var offset = 0
        if let cursor = query.cursor {
            if let start = cursor.offset {
                offset = start
            } else if let value = cursor.key, let after = cursor.tourId {
                let v = sql.bind(.double(value)), id = sql.bind(.uuid(after))
                sql.conditions.append("(\(key) \(descending ? "<" : ">") \(v) OR (\(key) = \(v) AND s.tour_id > \(id)))")
            }
        }
        let limit = sql.bind(.int(Int64(query.limit + 1)))
        let columns = dialect == .sqlite ? "s.*" : PostgresDiscoveryProjection.columns.split(separator: ",")
            .map { "s.\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
        let double = dialect == .sqlite ? "" : "::double precision"
        let text = """
            SELECT \(columns), (\(key))\(double) AS sort_key, \(distance ?? "NULL")\(double) AS distance FROM \(from)
            WHERE \(sql.conditions.joined(separator: " AND "))
            ORDER BY \(key) \(descending ? "DESC" : "ASC"), s.tour_id LIMIT \(limit) OFFSET \(sql.bind(.int(Int64(offset))))
            """
        let (rows, hasMore) = try await fetch(text, sql.binds, decode: query.limit)
        let hits = rows.map { DiscoveryHit(tour: $0.tour, distanceMetres: $0.distance) }
        var next: DiscoveryCursor?
        if hasMore, let last = rows.last {
            next = query.sort == .relevance
                ? DiscoveryCursor(sort: .relevance, offset: offset + query.limit)
                : DiscoveryCursor(sort: query.sort, key: last.sortKey, tourId: last.tour.tourId)
        }
        return DiscoveryPage(hits: hits, nextCursor: next)
    }

    /// Start points of listed tours inside `box` that match `filter` (no text search), at most `limit`.
    public func markers(in box: BoundingBox, filter: DiscoveryFilter, limit: Int = 20_000) async throws -> [TourMarker] {
        let dialect: SQLDialect = sqlite != nil ? .sqlite : .postgres
        var sql = SQLBuilder(dialect: dialect)
        var plain = filter
        plain.text = nil
        Self.conditions(plain, &sql, commonLanguage: try await languageIsCommon(plain.language))
        let (south, north) = (sql.bind(.double(box.south)), sql.bind(.double(box.north)))
        let (west, east) = (sql.bind(.double(box.west)), sql.bind(.double(box.east)))
        sql.conditions.append("s.start_lat BETWEEN \(south) AND \(north)")
        sql.conditions.append(box.crossesAntimeridian ? "(s.start_lng >= \(west) OR s.start_lng <= \(east))"
                                                     : "s.start_lng BETWEEN \(west) AND \(east)")
        let text = "SELECT s.tour_id, s.title, s.start_lat, s.start_lng FROM tour_search s WHERE \(sql.conditions.joined(separator: " AND "))"
            + " ORDER BY s.tour_id LIMIT \(sql.bind(.int(Int64(limit))))"
        if let sqlite {
            let (statement, binds) = (text, sql.binds)
            return try await sqlite.read { db in
                try Row.fetchAll(try db.cachedStatement(sql: statement), arguments: StatementArguments(binds.map(\.sqliteValue))).map {
                    TourMarker(tourId: UUID(uuidString: $0["tour_id"])!, title: $0["title"], start: LatLng(lat: $0["start_lat"], lng: $0["start_lng"]))
                }
            }
        }
        var markers: [TourMarker] = []
        for try await row in try await postgresRows(sql.postgresQuery(text)) {
            let (id, title, lat, lng) = try row.decode((UUID, String, Double, Double).self)
            markers.append(TourMarker(tourId: id, title: title, start: LatLng(lat: lat, lng: lng)))
        }
        return markers
    }

    private struct FetchedRow: Sendable {
        var tour: PublishedTour
        var sortKey: Double
        var distance: Double?
    }

    /// The rows of a page query; only the first `decode` rows are decoded (the one after them only tells that there is more).
    private func fetch(_ text: String, _ binds: [SQLValue], decode: Int) async throws -> (rows: [FetchedRow], hasMore: Bool) {
        if let sqlite {
            return try await sqlite.read { db in
                let all = try Row.fetchAll(try db.cachedStatement(sql: text), arguments: StatementArguments(binds.map(\.sqliteValue)))
                return (try all.prefix(decode).map {
                    FetchedRow(tour: try SQLiteDiscoveryProjection.hit($0), sortKey: $0["sort_key"], distance: $0["distance"])
                }, all.count > decode)
            }
        }
        var builder = SQLBuilder(dialect: .postgres)
        builder.binds = binds
        var rows: [FetchedRow] = []
        var count = 0
        for try await row in try await postgresRows(builder.postgresQuery(text)) {
            count += 1
            guard count <= decode else { continue }
            let columns = row.makeRandomAccess()
            let key = try columns["sort_key"].decode(Double.self)
            let distance = try columns["distance"].decode(Double?.self)
            rows.append(FetchedRow(tour: try PostgresDiscoveryProjection.hit(row), sortKey: key, distance: distance))
        }
        return (rows, count > decode)
    }

    /// The WHERE conditions of `filter` (except full text), appended to `sql`.
    /// `commonLanguage`: whether `filter.language` is one of many tours (on SQLite it decides the plan; see ``languageIsCommon(_:)``).
    static func conditions(_ filter: DiscoveryFilter, _ sql: inout SQLBuilder, commonLanguage: Bool = true) {
        sql.conditions.append(sql.dialect == .sqlite ? "s.listed = 1" : "s.listed")
        if let destination = filter.destinationId {
            sql.conditions.append("s.destination_id = \(sql.bind(.int(destination)))")
        }
        if let circle = filter.near {
            // Index prefilter (R*Tree box / GiST), then the exact great-circle distance, the same formula on both backends.
            let box = BoundingBox(covering: [circle.centre])!.expanded(by: circle.radiusMetres + 10)
            switch sql.dialect {
            case .sqlite:
                let lng = box.crossesAntimeridian
                    ? "(max_lng >= \(sql.bind(.double(box.west))) OR min_lng <= \(sql.bind(.double(box.east))))"
                    : "max_lng >= \(sql.bind(.double(box.west))) AND min_lng <= \(sql.bind(.double(box.east)))"
                sql.conditions.append("""
                    s.doc_id IN (SELECT id FROM tour_start WHERE max_lat >= \(sql.bind(.double(box.south)))
                        AND min_lat <= \(sql.bind(.double(box.north))) AND \(lng))
                    """)
            case .postgres:
                sql.conditions.append("""
                    ST_DWithin(s.start_geog, ST_SetSRID(ST_MakePoint(\(sql.bind(.double(circle.centre.longitude))),
                        \(sql.bind(.double(circle.centre.latitude)))), 4326)::geography, \(sql.bind(.double(circle.radiusMetres + 10))), false)
                    """)
            }
            sql.conditions.append("\(distanceExpression(circle.centre, &sql)) <= \(sql.bind(.double(circle.radiusMetres)))")
        }
        if !filter.themes.isEmpty {
            sql.conditions.append("(s.theme_mask & \(sql.bind(.int(filter.themeMask)))) <> 0")
        }
        // On SQLite, `+` keeps the planner from driving a query by the price index (then sorting thousands of rows by
        // popularity): walking the sort's index and testing the price finds a page after a few dozen rows.
        let price = sql.dialect == .sqlite ? "+s.price_minor" : "s.price_minor"
        if let currency = filter.currency {
            sql.conditions.append("\(sql.dialect == .sqlite ? "+" : "")s.currency = \(sql.bind(.text(currency.code)))")
        }
        if let low = filter.minPriceMinor { sql.conditions.append("\(price) >= \(sql.bind(.int(low)))") }
        if let high = filter.maxPriceMinor { sql.conditions.append("\(price) <= \(sql.bind(.int(high)))") }
        if filter.freeOnly { sql.conditions.append("\(price) = 0") }
        if let low = filter.minMinutes { sql.conditions.append("s.estimated_minutes >= \(sql.bind(.int(Int64(low))))") }
        if let high = filter.maxMinutes { sql.conditions.append("s.estimated_minutes <= \(sql.bind(.int(Int64(high))))") }
        if let rating = filter.minRating { sql.conditions.append("s.rating_avg >= \(sql.bind(.double(rating)))") }
        if let language = filter.language {
            switch sql.dialect {
            case .sqlite:
                // Common languages: walk the sort's index and probe (lang, doc_id); rare ones: start from their few tours.
                sql.conditions.append(commonLanguage
                    ? "EXISTS (SELECT 1 FROM tour_language l WHERE l.lang = \(sql.bind(.text(language))) AND l.doc_id = s.doc_id)"
                    : "s.doc_id IN (SELECT doc_id FROM tour_language WHERE lang = \(sql.bind(.text(language))))")
            case .postgres: sql.conditions.append("s.languages LIKE \(sql.bind(.text("%,\(language),%")))")
            }
        }
        if let mode = filter.mode { sql.conditions.append("s.mode = \(sql.bind(.text(mode.rawValue)))") }
    }

    /// Haversine distance in metres from `centre` to the row's first stop, on the sphere of `Earth.meanRadius`.
    static func distanceExpression(_ centre: Coordinate, _ sql: inout SQLBuilder) -> String {
        let lat = sql.bind(.double(centre.latitude * .pi / 180)), lng = sql.bind(.double(centre.longitude * .pi / 180))
        let cosLat = sql.bind(.double(cos(centre.latitude * .pi / 180)))
        let least = sql.dialect == .sqlite ? "min" : "least"
        let haversine = "power(sin((radians(s.start_lat) - \(lat)) / 2), 2) + \(cosLat) * cos(radians(s.start_lat))"
            + " * power(sin((radians(s.start_lng) - \(lng)) / 2), 2)"
        return "(\(2 * Earth.meanRadius) * asin(sqrt(\(least)(1.0, \(haversine)))))"
    }
}

/// The SQL dialects the catalog writes.
enum SQLDialect {
    case sqlite, postgres
}

/// A bound value.
enum SQLValue: Sendable {
    case int(Int64)
    case double(Double)
    case text(String)
    case uuid(UUID)

    var sqliteValue: (any DatabaseValueConvertible)? {
        switch self {
        case .int(let value): value
        case .double(let value): value
        case .text(let value): value
        case .uuid(let value): value.uuidString.lowercased()
        }
    }
}

/// Collects WHERE conditions and bound values with numbered placeholders (`?n` on SQLite, `$n` on PostgreSQL), so an
/// expression with placeholders may appear more than once and in any order.
struct SQLBuilder {
    let dialect: SQLDialect
    var conditions: [String] = []
    var binds: [SQLValue] = []

    init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    mutating func bind(_ value: SQLValue) -> String {
        binds.append(value)
        return dialect == .sqlite ? "?\(binds.count)" : "$\(binds.count)"
    }

    func postgresQuery(_ text: String) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: text)
        for value in binds {
            switch value {
            case .int(let value): query.binds.append(value)
            case .double(let value): query.binds.append(value)
            case .text(let value): query.binds.append(value)
            case .uuid(let value): query.binds.append(value)
            }
        }
        return query
    }
}

extension TourCatalog {
    /// The listed tours among `ids` (summaries, `stops` empty), in one query.
    func listedTours(_ ids: [UUID]) async throws -> [UUID: PublishedTour] {
        guard !ids.isEmpty else { return [:] }
        var result: [UUID: PublishedTour] = [:]
        if let sqlite {
            let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let arguments = StatementArguments(ids.map { $0.uuidString.lowercased() })
            let tours = try await sqlite.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM tour_search WHERE listed = 1 AND tour_id IN (\(placeholders))", arguments: arguments)
                    .map(SQLiteDiscoveryProjection.hit)
            }
            for tour in tours { result[tour.tourId] = tour }
            return result
        }
        let query: PostgresQuery = "SELECT \(unescaped: PostgresDiscoveryProjection.columns) FROM tour_search WHERE listed AND tour_id = ANY(\(ids))"
        for try await row in try await postgresRows(query) {
            let tour = try PostgresDiscoveryProjection.hit(row)
            result[tour.tourId] = tour
        }
        return result
    }
}
