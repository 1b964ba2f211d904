import EventSourcing
import Foundation
import Geo
import GRDB
import Logging
import PostgresNIO

/// The gazetteer as the service keeps it: reference data (not events) in a `destinations` table of the service's own
/// database, imported from `../shared/data/cities.json.gz` on first start or by the operator command; the in-memory
/// ``DestinationIndex`` is built from it at every start.
public protocol DestinationStore: Sendable {
    /// How many destinations are stored.
    func count() async throws -> Int
    /// Inserts or updates every city (ids are GeoNames ids, stable across gazetteer versions); returns how many.
    func upsert(_ cities: [City]) async throws -> Int
    /// Every stored destination.
    func loadAll() async throws -> [City]
}

extension DestinationStore {
    /// Imports the reference gazetteer when the table is empty; returns the cities imported (0 when already there).
    public func importIfEmpty(logger: Logger) async throws -> Int {
        guard try await count() == 0 else { return 0 }
        let (cities, skipped) = try Gazetteer.loadReferenceData()
        let imported = try await upsert(cities)
        logger.notice("destinations imported from the reference gazetteer", metadata: [
            "destinations": "\(imported)", "skipped": "\(skipped)"])
        return imported
    }
}

/// Destinations in the embedded SQLite database.
public struct SQLiteDestinationStore: DestinationStore {
    let database: SQLiteServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func count() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM destinations") ?? 0 }
    }

    public func upsert(_ cities: [City]) async throws -> Int {
        try await database.write { db in
            let statement = try db.makeStatement(sql: """
                INSERT INTO destinations (id, name, country, lat, lng) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, country = excluded.country, lat = excluded.lat, lng = excluded.lng
                """)
            for city in cities {
                try statement.execute(arguments: [city.id, city.name, city.country, city.coordinate.latitude, city.coordinate.longitude])
            }
            return cities.count
        }
    }

    public func loadAll() async throws -> [City] {
        try await database.read { db in
            var cities: [City] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, country, lat, lng FROM destinations ORDER BY id")
            while let row = try rows.next() {
                guard let coordinate = try? Coordinate(latitude: row[3], longitude: row[4]) else { continue }
                cities.append(City(id: row[0], name: row[1], country: row[2], coordinate: coordinate))
            }
            return cities
        }
    }
}

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
