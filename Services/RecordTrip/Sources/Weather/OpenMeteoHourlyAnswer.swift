import Foundation

/// The part of Open-Meteo's JSON answer the adapter reads (`hourly_units` and `hourly`; the rest — `latitude`,
/// `generationtime_ms`, `elevation`, … — is ignored). Values may be `null` where the model has no data.
struct OpenMeteoHourlyAnswer: Decodable {
    struct Hourly: Decodable {
        var time: [Double]
        var temperature_2m: [Double?]
        var precipitation: [Double?]
        var weather_code: [Double?]
        var wind_speed_10m: [Double?]
        var wind_direction_10m: [Double?]?
    }

    var hourly_units: [String: String]?
    var hourly: Hourly

    /// Decodes `data`; anything but the documented shape is ``WeatherError/malformedResponse(_:)``.
    static func decode(_ data: Data) throws(WeatherError) -> OpenMeteoHourlyAnswer {
        do {
            return try JSONDecoder().decode(OpenMeteoHourlyAnswer.self, from: data)
        } catch {
            throw .malformedResponse(Self.summary(of: error))
        }
    }

    /// The observation of the hour `[t, t + 3600)` containing `time`, converted to °C, m/s and mm.
    func observation(at time: Double, source: String) throws(WeatherError) -> WeatherObservation {
        let count = hourly.time.count
        let lengths = [hourly.temperature_2m.count, hourly.precipitation.count, hourly.weather_code.count,
                       hourly.wind_speed_10m.count, hourly.wind_direction_10m?.count ?? count]
        guard lengths.allSatisfy({ $0 == count }) else { throw .malformedResponse("hourly arrays of unequal length") }
        guard let index = hourly.time.firstIndex(where: { $0 <= time && time < $0 + 3600 }),
              let temperature = hourly.temperature_2m[index], let precipitation = hourly.precipitation[index],
              let code = hourly.weather_code[index], let wind = hourly.wind_speed_10m[index]
        else { throw .hourMissing(time) }
        guard code == code.rounded(), (0...99).contains(code) else { throw .malformedResponse("weather_code \(code) is not a WMO code") }
        let units = hourly_units ?? [:]
        return WeatherObservation(
            temperatureC: try Self.celsius(temperature, unit: units["temperature_2m"]),
            windSpeedMps: try Self.metresPerSecond(wind, unit: units["wind_speed_10m"]),
            windDirectionDeg: hourly.wind_direction_10m?[index],
            precipitationMm: try Self.millimetres(precipitation, unit: units["precipitation"]),
            conditionCode: Int(code),
            source: source)
    }

    // The adapter asks for °C, m/s and mm; a compatible server that ignores a unit parameter still says which unit it
    // used, so its answer is converted rather than misread.
    static func celsius(_ value: Double, unit: String?) throws(WeatherError) -> Double {
        switch unit {
        case nil, "°C": value
        case "°F": (value - 32) * 5 / 9
        case let other?: throw .malformedResponse("temperature in unknown unit \(other)")
        }
    }

    static func metresPerSecond(_ value: Double, unit: String?) throws(WeatherError) -> Double {
        switch unit {
        case nil, "m/s": value
        case "km/h": value / 3.6
        case "mp/h", "mph": value * 0.44704
        case "kn": value * 1852 / 3600
        case let other?: throw .malformedResponse("wind speed in unknown unit \(other)")
        }
    }

    static func millimetres(_ value: Double, unit: String?) throws(WeatherError) -> Double {
        switch unit {
        case nil, "mm": value
        case "inch": value * 25.4
        case let other?: throw .malformedResponse("precipitation in unknown unit \(other)")
        }
    }

    /// A short reason for a decoding failure (the coding path, not the whole body).
    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "unexpected value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: "not JSON"
        default: "undecodable"
        }
    }
}
