import EventSourcing
import Foundation
import PostgresNIO
import Testing

@Suite("PostgresFragment: optional parts of a query, bound where they are interpolated")
struct PostgresFragmentTests {
    @Test("conditions joined into a query are numbered in the order they appear; identifiers stay unescaped; nesting works")
    func composition() {
        let id = UUID()
        var conditions: [PostgresFragment] = ["s.listed"]
        conditions.append("s.destination_id = \(Int64(7))")
        let column = "price_minor"
        conditions.append("s.\(unescaped: column) BETWEEN \(Int64(100)) AND \(Int64(900))")
        let key: PostgresFragment = "(s.popularity + \(Int64(1)))"
        conditions.append("(\(key) < \(2.5) OR (\(key) = \(2.5) AND s.tour_id > \(id)))")
        let query: PostgresQuery = """
            SELECT s.tour_id FROM tour_search s WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(key) LIMIT \(Int64(11))
            """
        #expect(query.sql == """
            SELECT s.tour_id FROM tour_search s WHERE s.listed AND s.destination_id = $1 AND s.price_minor BETWEEN $2 AND $3 \
            AND ((s.popularity + $4) < $5 OR ((s.popularity + $6) = $7 AND s.tour_id > $8)) ORDER BY (s.popularity + $9) LIMIT $10
            """)
        #expect(query.binds.count == 10, "a fragment interpolated twice binds its values twice")
    }

    @Test("no fragments join to nothing; a literal fragment binds nothing")
    func empty() {
        let none: [PostgresFragment] = []
        let query: PostgresQuery = "SELECT 1\(none.joined(separator: " AND "))\(PostgresFragment(" WHERE true"))"
        #expect(query.sql == "SELECT 1 WHERE true")
        #expect(query.binds.count == 0)
    }
}
