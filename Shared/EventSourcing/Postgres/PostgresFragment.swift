import PostgresNIO

/// A piece of PostgreSQL written with postgres-nio's interpolation (`"s.destination_id = \(id)"`,
/// `"\(unescaped: column) >= \(low)"`) whose values are bound only where the piece is interpolated into a
/// `PostgresQuery` (or into another fragment). A query with optional parts — a search's filters — collects them as
/// fragments and interpolates them once, so its placeholders are numbered by postgres-nio, in the order they appear,
/// and never by hand. A fragment interpolated twice binds its values twice.
///
/// ```swift
/// var conditions: [PostgresFragment] = ["s.listed"]
/// if let low = filter.minPrice { conditions.append("s.price_minor >= \(low)") }
/// let query: PostgresQuery = "SELECT s.tour_id FROM tour_search s WHERE \(conditions.joined(separator: " AND "))"
/// ```
public struct PostgresFragment: Sendable, ExpressibleByStringInterpolation {
    /// Literal SQL or one value to bind.
    enum Piece: Sendable {
        case sql(String)
        case value(any PostgresDynamicTypeEncodable & Sendable)
    }

    var pieces: [Piece]

    /// SQL without values.
    public init(stringLiteral value: String) {
        pieces = [.sql(value)]
    }

    /// SQL with interpolated values, identifiers (`unescaped:`) and fragments.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Builds a ``PostgresFragment`` the way `PostgresQuery.StringInterpolation` builds a query.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var pieces: [Piece] = []

        /// An empty interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Literal SQL.
        public mutating func appendLiteral(_ literal: String) {
            pieces.append(.sql(literal))
        }

        /// A value, bound as a parameter.
        public mutating func appendInterpolation(_ value: some PostgresDynamicTypeEncodable & Sendable) {
            pieces.append(.value(value))
        }

        /// Text written into the SQL as it is: only identifiers and fixed SQL of the caller's own, never input.
        public mutating func appendInterpolation(unescaped text: String) {
            pieces.append(.sql(text))
        }

        /// Another fragment, its values bound in place.
        public mutating func appendInterpolation(_ fragment: PostgresFragment) {
            pieces.append(contentsOf: fragment.pieces)
        }
    }
}

extension PostgresQuery.StringInterpolation {
    /// A ``PostgresFragment``: its SQL in place, its values bound as the next parameters.
    public mutating func appendInterpolation(_ fragment: PostgresFragment) {
        for piece in fragment.pieces {
            switch piece {
            case .sql(let text): appendLiteral(text)
            case .value(let value): appendInterpolation(value)
            }
        }
    }
}

extension Array where Element == PostgresFragment {
    /// The fragments one after the other, `separator` between them (e.g. `" AND "` for a list of conditions).
    public func joined(separator: String) -> PostgresFragment {
        var joined = PostgresFragment.StringInterpolation(literalCapacity: 0, interpolationCount: count)
        for (index, fragment) in enumerated() {
            if index > 0 { joined.appendLiteral(separator) }
            joined.appendInterpolation(fragment)
        }
        return PostgresFragment(stringInterpolation: joined)
    }
}
