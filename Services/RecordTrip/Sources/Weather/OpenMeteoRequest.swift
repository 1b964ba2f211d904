import Contracts
import Foundation

/// The one request the adapter sends, for the UTC day holding the ride's start:
///
/// `GET {base}/v1/forecast?latitude=…&longitude=…&hourly=temperature_2m,precipitation,weather_code,wind_speed_10m,`
/// `wind_direction_10m&wind_speed_unit=ms&timeformat=unixtime&timezone=GMT&start_date=YYYY-MM-DD&end_date=YYYY-MM-DD`
///
/// or the same on `{archive}/v1/archive` when the ride is older than the forecast API's past window. One UTC day is
/// always enough: the hour containing the start lies in the day containing it, and 24 hours keep the answer small
/// (≈ 1.5 kB).
public struct OpenMeteoRequest: Sendable, Equatable {
    /// Which of Open-Meteo's two APIs answers.
    public enum API: String, Sendable, Equatable {
        /// `/v1/forecast`: forecasts and the recent past (Open-Meteo keeps 92 days of it).
        case forecast = "/v1/forecast"
        /// `/v1/archive`: the reanalysis archive (ERA5 and successors) from 1940 to about 5 days ago.
        case archive = "/v1/archive"
    }

    /// The hourly variables asked for, in Open-Meteo's names.
    public static let hourlyVariables = ["temperature_2m", "precipitation", "weather_code", "wind_speed_10m", "wind_direction_10m"]

    /// The API asked.
    public let api: API
    /// Latitude asked about, WGS 84 degrees.
    public let latitude: Double
    /// Longitude asked about, WGS 84 degrees.
    public let longitude: Double
    /// The UTC day asked for, `YYYY-MM-DD`.
    public let day: String

    /// The request for `time` (seconds since the epoch, UTC) at `latitude`, `longitude` on `api`; throws
    /// ``WeatherError/invalidQuery(latitude:longitude:time:)`` for what ``WeatherCell`` refuses.
    public init(api: API, latitude: Double, longitude: Double, time: Double) throws(WeatherError) {
        _ = try WeatherCell(latitude: latitude, longitude: longitude, time: time)
        self.api = api
        self.latitude = latitude
        self.longitude = longitude
        let days = CivilDate.floorDivide(Int(time.rounded(.down)), 86_400)
        let (year, month, dayOfMonth) = CivilDate.civil(fromDaysSinceEpoch: days)
        self.day = String(format: "%04d-%02d-%02d", year, month, dayOfMonth)
    }

    /// The query items, in a fixed order.
    public var queryItems: [(name: String, value: String)] {
        [
            ("latitude", String(format: "%.4f", latitude)),
            ("longitude", String(format: "%.4f", longitude)),
            ("hourly", Self.hourlyVariables.joined(separator: ",")),
            ("wind_speed_unit", "ms"),
            ("timeformat", "unixtime"),
            ("timezone", "GMT"),
            ("start_date", day),
            ("end_date", day),
        ]
    }

    /// The full URL on `base` (scheme, host, optional port and path prefix; no trailing slash needed).
    public func url(base: String) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        // Every value is digits, letters, '-', '.', '_' or ',' — nothing needs percent-encoding.
        return trimmed + api.rawValue + "?" + queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }
}
