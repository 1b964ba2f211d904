import Contracts
import EventSourcing
import Foundation
import Geo
import PostgresNIO

/// ``TourCatalogStore`` in the service's PostgreSQL database: `tour_search` with its weighted `tsvector`, `geography`
/// first stop and word list, and `tour_terms` (``PostgresDiscoveryProjection``). A search collects its conditions as
/// ``PostgresFragment``s, so every value is bound by postgres-nio's interpolation.
public struct PostgresTourCatalogStore: TourCatalogStore {
    let database: PostgresServiceDatabase

    /// The reads of `database`'s discovery read model.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    /// The columns of a search hit, qualified by the alias `s`.
    static let hitColumns = PostgresDiscoveryProjection.columns.split(separator: ",")
        .map { "s.\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")

    private func rows(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await database.client.query(query, logger: database.logger)
    }

    public func tour(_ id: UUID, includeUnlisted: Bool) async throws -> PublishedTour? {
        let listed = includeUnlisted ? "" : " AND listed"
        let query: PostgresQuery = """
            SELECT \(unescaped: PostgresDiscoveryProjection.columns), document FROM tour_search WHERE tour_id = \(id)\(unescaped: listed)
            """
        for try await row in try await rows(query) {
            return try PostgresDiscoveryProjection.tour(row)
        }
        return nil
    }

    public func listedTours(_ ids: [UUID]) async throws -> [PublishedTour] {
        var tours: [PublishedTour] = []
        let query: PostgresQuery = "SELECT \(unescaped: PostgresDiscoveryProjection.columns) FROM tour_search WHERE listed AND tour_id = ANY(\(ids))"
        for try await row in try await rows(query) {
            tours.append(try PostgresDiscoveryProjection.hit(row))
        }
        return tours
    }

    public func popularityByDestination() async throws -> [Int64: Int] {
        var result: [Int64: Int] = [:]
        let query: PostgresQuery = "SELECT destination_id, sum(popularity) FROM tour_search WHERE listed GROUP BY destination_id HAVING sum(popularity) > 0"
        for try await (destination, total) in try await rows(query).decode((Int64, Int64).self) {
            result[destination] = Int(total)
        }
        return result
    }

    public func estimatedMatches(exact: [String], prefix: String) async throws -> Int {
        let upper = prefix + "\u{10FFFF}"
        let query: PostgresQuery = """
            SELECT least((SELECT coalesce(sum(docs), 0) FROM tour_terms WHERE term >= \(prefix) AND term < \(upper)),
                         coalesce((SELECT min(coalesce(t.docs, 0)) FROM unnest(\(exact)::text[]) u(term) LEFT JOIN tour_terms t ON t.term = u.term),
                                  2147483647))::bigint
            """
        for try await (count) in try await rows(query).decode(Int64.self) { return Int(count) }
        return 0
    }

    public func search(_ search: DiscoverySearch) async throws -> (rows: [DiscoveryRow], hasMore: Bool) {
        var conditions = Self.conditions(search.filter)
        let distance = search.filter.near.map { Self.distance(from: $0.centre) }
        var rank: PostgresFragment = "0"
        switch search.text {
        case .ranked(let text)?:
            let tsQuery: PostgresFragment = "to_tsquery('simple', \(DiscoveryText.tsQuery(text)))"
            rank = "-ts_rank(s.search, \(tsQuery))"
            conditions.append("s.search @@ \(tsQuery)")
        case .probed(let text)?:
            // As on SQLite: the sort's index walked, each row's words probed (`@@` would send the planner to the GIN
            // bitmap of every match, or to a sequential scan).
            for probe in DiscoveryText.wordProbes(text) { conditions.append("strpos(s.words, \(probe)) > 0") }
        case nil:
            break
        }
        let key = Self.key(search.order, rank: rank, distance: distance)
        if let after = search.after {
            let operation = search.order.descending ? "<" : ">"
            conditions.append("(\(key) \(unescaped: operation) \(after.key) OR (\(key) = \(after.key) AND s.tour_id > \(after.tourId)))")
        }
        // A computed key is sorted by its result column, so that it is computed once per row.
        let orderBy: PostgresFragment = search.order.isComputed ? "sort_key" : key
        let direction = search.order.descending ? "DESC" : "ASC"
        let query: PostgresQuery = """
            SELECT \(unescaped: Self.hitColumns), (\(key))::double precision AS sort_key, \(distance ?? PostgresFragment("NULL"))::double precision AS distance
            FROM tour_search s WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(orderBy) \(unescaped: direction), s.tour_id LIMIT \(Int64(search.limit + 1)) OFFSET \(Int64(search.offset))
            """
        var result: [DiscoveryRow] = []
        var count = 0
        for try await row in try await rows(query) {
            count += 1
            guard count <= search.limit else { continue }
            let columns = row.makeRandomAccess()
            let key = try columns["sort_key"].decode(Double.self)
            let distance = try columns["distance"].decode(Double?.self)
            result.append(DiscoveryRow(tour: try PostgresDiscoveryProjection.hit(row), sortKey: key, distance: distance))
        }
        return (result, count > search.limit)
    }

    public func markers(in box: BoundingBox, filter: DiscoveryFilter, limit: Int) async throws -> [TourMarker] {
        var conditions = Self.conditions(filter)
        conditions.append("s.start_lat BETWEEN \(box.south) AND \(box.north)")
        conditions.append(box.crossesAntimeridian ? "(s.start_lng >= \(box.west) OR s.start_lng <= \(box.east))"
                                                  : "s.start_lng BETWEEN \(box.west) AND \(box.east)")
        let query: PostgresQuery = """
            SELECT s.tour_id, s.title, s.start_lat, s.start_lng FROM tour_search s WHERE \(conditions.joined(separator: " AND "))
             ORDER BY s.tour_id LIMIT \(Int64(limit))
            """
        var markers: [TourMarker] = []
        for try await (id, title, lat, lng) in try await rows(query).decode((UUID, String, Double, Double).self) {
            markers.append(TourMarker(tourId: id, title: title, start: LatLng(lat: lat, lng: lng)))
        }
        return markers
    }

    /// The sort key of `order` (`rank`: the text rank of a ranked match; `distance`: the search's distance expression, if
    /// it has a centre).
    static func key(_ order: DiscoveryOrder, rank: PostgresFragment, distance: PostgresFragment?) -> PostgresFragment {
        switch order {
        case .textRank: rank
        case .rating: PostgresFragment("s.rating_bayes")
        case .popularity: PostgresFragment("s.popularity")
        case .distance: distance ?? PostgresFragment("0")
        case .price: PostgresFragment("s.price_minor")
        case .newest: PostgresFragment("s.first_published_at_us")
        }
    }

    /// The WHERE conditions of `filter` except its text.
    static func conditions(_ filter: DiscoveryFilter) -> [PostgresFragment] {
        var conditions: [PostgresFragment] = ["s.listed"]
        if let destination = filter.destinationId { conditions.append("s.destination_id = \(destination)") }
        if let circle = filter.near {
            // GiST prefilter, then the exact great-circle distance (the same formula as on SQLite).
            conditions.append("""
                ST_DWithin(s.start_geog, ST_SetSRID(ST_MakePoint(\(circle.centre.longitude), \(circle.centre.latitude)), 4326)::geography, \
                \(circle.radiusMetres + 10), false)
                """)
            conditions.append("\(distance(from: circle.centre)) <= \(circle.radiusMetres)")
        }
        if !filter.themes.isEmpty { conditions.append("(s.theme_mask & \(filter.themeMask)) <> 0") }
        if let currency = filter.currency { conditions.append("s.currency = \(currency.code)") }
        if let low = filter.minPriceMinor { conditions.append("s.price_minor >= \(low)") }
        if let high = filter.maxPriceMinor { conditions.append("s.price_minor <= \(high)") }
        if filter.freeOnly { conditions.append("s.price_minor = 0") }
        if let low = filter.minMinutes { conditions.append("s.estimated_minutes >= \(Int64(low))") }
        if let high = filter.maxMinutes { conditions.append("s.estimated_minutes <= \(Int64(high))") }
        if let rating = filter.minRating { conditions.append("s.rating_avg >= \(rating)") }
        if let language = filter.language { conditions.append("s.languages LIKE \("%,\(language),%")") }
        if let mode = filter.mode { conditions.append("s.mode = \(mode.rawValue)") }
        return conditions
    }

    /// Haversine distance in metres from `centre` to the row's first stop, on the sphere of `Earth.meanRadius`.
    static func distance(from centre: Coordinate) -> PostgresFragment {
        let lat = centre.latitude * .pi / 180, lng = centre.longitude * .pi / 180
        let haversine: PostgresFragment = """
            power(sin((radians(s.start_lat) - \(lat)) / 2), 2) + \(cos(lat)) * cos(radians(s.start_lat)) \
            * power(sin((radians(s.start_lng) - \(lng)) / 2), 2)
            """
        return "(\(unescaped: "\(2 * Earth.meanRadius)") * asin(sqrt(least(1.0, \(haversine)))))"
    }
}
