import EventSourcing
import Foundation
import Geo
import PostgresNIO

/// Destinations in the service's PostgreSQL database.
public struct PostgresDestinationStore: DestinationStore {
    let database: PostgresServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func count() async throws -> Int {
        for try await count in try await database.client.query("SELECT COUNT(*) FROM destinations", logger: database.logger)
            .decode(Int.self) { return count }
        return 0
    }

    public func upsert(_ cities: [City]) async throws -> Int {
        // 10,000 rows per statement through unnest: one round trip each instead of one per city.
        var start = 0
        while start < cities.count {
            let chunk = cities[start..<min(start + 10_000, cities.count)]
            start += chunk.count
            let ids = chunk.map(\.id), names = chunk.map(\.name), countries = chunk.map(\.country)
            let lats = chunk.map(\.coordinate.latitude), lngs = chunk.map(\.coordinate.longitude)
            try await database.client.query("""
                INSERT INTO destinations (id, name, country, lat, lng)
                SELECT * FROM unnest(\(ids)::int8[], \(names)::text[], \(countries)::text[], \(lats)::float8[], \(lngs)::float8[])
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, country = excluded.country, lat = excluded.lat, lng = excluded.lng
                """, logger: database.logger)
        }
        return cities.count
    }

    public func loadAll() async throws -> [City] {
        var cities: [City] = []
        let rows = try await database.client.query("SELECT id, name, country, lat, lng FROM destinations ORDER BY id", logger: database.logger)
        for try await (id, name, country, lat, lng) in rows.decode((Int64, String, String, Double, Double).self) {
            guard let coordinate = try? Coordinate(latitude: lat, longitude: lng) else { continue }
            cities.append(City(id: id, name: name, country: country, coordinate: coordinate))
        }
        return cities
    }
}
