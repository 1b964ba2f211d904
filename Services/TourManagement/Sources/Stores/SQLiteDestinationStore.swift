import EventSourcing
import Foundation
import Geo
import GRDB

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
