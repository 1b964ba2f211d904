import Contracts
import Foundation

/// A request to the ``OpenMeteoStandIn`` checked as Open-Meteo checks it, and the answer it gets.
struct OpenMeteoStandInQuery {
    /// A parameter Open-Meteo would refuse with 400; `reason` is what it says.
    struct Invalid: Error {
        var reason: String
    }

    /// Open-Meteo's hourly variables the stand-in knows, with their unit in the default units.
    static let variables: [String: String] = [
        "temperature_2m": "°C", "precipitation": "mm", "weather_code": "wmo code", "wind_speed_10m": "km/h",
        "wind_direction_10m": "°",
    ]
    /// `wind_speed_unit` values: the unit's name in the answer and the factor from m/s.
    static let windUnits: [String: (name: String, perMps: Double)] = [
        "kmh": ("km/h", 3.6), "ms": ("m/s", 1), "mph": ("mp/h", 3600 / 1609.344), "kn": ("kn", 3600 / 1852.0),
    ]

    var latitude: Double
    var longitude: Double
    var hourly: [String]
    var unixTime: Bool
    var wind: (name: String, perMps: Double)
    var firstDay: Int
    var lastDay: Int

    init(_ query: [String: String], archive: Bool) throws {
        guard let latitude = query["latitude"].flatMap(Double.init), let longitude = query["longitude"].flatMap(Double.init) else {
            throw Invalid(reason: "Value of type 'Float' required for key 'latitude'.")
        }
        guard (-90...90).contains(latitude) else { throw Invalid(reason: "Latitude must be in range of -90 to 90°. Given: \(latitude).") }
        guard (-180...180).contains(longitude) else {
            throw Invalid(reason: "Longitude must be in range of -180 to 180°. Given: \(longitude).")
        }
        (self.latitude, self.longitude) = (latitude, longitude)
        hourly = (query["hourly"] ?? "").split(separator: ",").map(String.init)
        if let unknown = hourly.first(where: { Self.variables[$0] == nil }) {
            throw Invalid(reason: "Cannot initialize WeatherVariable from invalid String value \(unknown) for key hourly")
        }
        switch query["timeformat"] ?? "iso8601" {
        case "unixtime": unixTime = true
        case "iso8601": unixTime = false
        case let other: throw Invalid(reason: "Cannot initialize Timeformat from invalid String value \(other) for key timeformat")
        }
        guard let wind = Self.windUnits[query["wind_speed_unit"] ?? "kmh"] else {
            throw Invalid(reason: "Cannot initialize WindspeedUnit from invalid String value \(query["wind_speed_unit"] ?? "") for key wind_speed_unit")
        }
        self.wind = wind
        switch (query["start_date"].flatMap(Self.day), query["end_date"].flatMap(Self.day)) {
        case let (first?, last?) where first <= last && last - first < 366: (firstDay, lastDay) = (first, last)
        case (nil, nil) where !archive && query["start_date"] == nil && query["end_date"] == nil:
            let today = Int(Date().timeIntervalSince1970 / 86_400)
            (firstDay, lastDay) = (today, today + 6)
        default: throw Invalid(reason: "Parameter 'start_date' and 'end_date' must be set and form a range of at most a year")
        }
    }

    /// Open-Meteo's JSON for this query, keys in Open-Meteo's order, `weather` deciding each hour's values.
    func answer(weather: OpenMeteoStandIn.Weather) -> String {
        let hours = stride(from: firstDay * 86_400, to: (lastDay + 1) * 86_400, by: 3600).map { ($0, weather($0, latitude, longitude)) }
        let units = ["\"time\":\"\(unixTime ? "unixtime" : "iso8601")\""] + hourly.map { variable in
            "\"\(variable)\":\"\(variable == "wind_speed_10m" ? wind.name : Self.variables[variable] ?? "")\""
        }
        let times = hours.map { unixTime ? String($0.0) : "\"\(Self.isoHour($0.0))\"" }
        let columns = ["\"time\":[\(times.joined(separator: ","))]"] + hourly.map { variable in
            "\"\(variable)\":[\(hours.map { value(variable, $0.1) }.joined(separator: ","))]"
        }
        // Open-Meteo answers for the grid point nearest the place, not the place itself.
        let gridLatitude = (latitude * 40).rounded() / 40, gridLongitude = (longitude * 40).rounded() / 40
        return "{\"latitude\":\(gridLatitude),\"longitude\":\(gridLongitude),\"generationtime_ms\":0.0400543212890625,"
            + "\"utc_offset_seconds\":0,\"timezone\":\"GMT\",\"timezone_abbreviation\":\"GMT\",\"elevation\":203.0,"
            + "\"hourly_units\":{\(units.joined(separator: ","))},\"hourly\":{\(columns.joined(separator: ","))}}"
    }

    private func value(_ variable: String, _ hour: OpenMeteoStandIn.Hour?) -> String {
        guard let hour else { return "null" }
        return switch variable {
        case "temperature_2m": "\(hour.temperatureC)"
        case "precipitation": "\(hour.precipitationMm)"
        case "weather_code": "\(hour.weatherCode)"
        case "wind_speed_10m": "\((hour.windSpeedMps * wind.perMps * 100).rounded() / 100)"
        default: "\(Int(hour.windDirectionDeg.rounded()))"
        }
    }

    /// Days since the epoch of `YYYY-MM-DD`, or `nil`.
    static func day(_ text: String) -> Int? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        return CivilDate.daysSinceEpoch(year: parts[0], month: parts[1], day: parts[2])
    }

    /// `YYYY-MM-DDTHH:MM` of an hour given in seconds since the epoch.
    static func isoHour(_ seconds: Int) -> String {
        let (year, month, day) = CivilDate.civil(fromDaysSinceEpoch: CivilDate.floorDivide(seconds, 86_400))
        return String(format: "%04d-%02d-%02dT%02d:00", year, month, day, CivilDate.floorModulo(seconds, 86_400) / 3600)
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
