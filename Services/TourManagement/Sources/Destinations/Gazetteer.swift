import Foundation
import Geo
import ReferenceData

/// Reads the world-cities gazetteer (`../shared/data/cities.json.gz`, OpenWeatherMap/GeoNames, CC BY-SA 4.0 / CC BY 4.0).
public enum Gazetteer {
    /// Attribution to show wherever the data is shown.
    public static let attribution = "City data © OpenWeather (CC BY-SA 4.0), names and coordinates from GeoNames (CC BY 4.0)"

    private struct Entry: Decodable {
        struct Coord: Decodable {
            var lon: Double
            var lat: Double
        }

        var _id: Int64
        var name: String
        var country: String
        var coord: Coord
    }

    /// The cities of the gzip-compressed JSON array at `url`. Entries without a name or with impossible coordinates
    /// are skipped (the file has 4 nameless ones); `skipped` counts them.
    public static func load(from url: URL) throws -> (cities: [City], skipped: Int) {
        let json = try Gzip.decompress(contentsOf: url)
        let entries = try JSONDecoder().decode([Entry].self, from: json)
        var cities: [City] = []
        cities.reserveCapacity(entries.count)
        var skipped = 0
        for entry in entries {
            let name = entry.name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, let coordinate = try? Coordinate(latitude: entry.coord.lat, longitude: entry.coord.lon) else {
                skipped += 1
                continue
            }
            cities.append(City(id: entry._id, name: name, country: entry.country, coordinate: coordinate))
        }
        return (cities, skipped)
    }

    /// The gazetteer of the reference data directory.
    public static func loadReferenceData() throws -> (cities: [City], skipped: Int) {
        try load(from: ReferenceDataDirectory.file("cities.json.gz"))
    }
}
