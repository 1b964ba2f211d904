import AsyncHTTPClient
import Foundation
import ServiceKit

/// record-trip's weather keys, read once at start-up (the service's configuration embeds them):
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_RECORD_TRIP_WEATHER_URL` | base URL of an Open-Meteo-compatible forecast API, e.g. `https://api.open-meteo.com`; empty = weather off | empty |
/// | `WAYPOINT_RECORD_TRIP_WEATHER_ARCHIVE_URL` | base URL of its archive API (rides older than 60 days), e.g. `https://archive-api.open-meteo.com` | the weather URL |
/// | `WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_SECONDS` | upper bound on one lookup, connect to last byte (0.1–60) | 3 |
/// | `WAYPOINT_RECORD_TRIP_WEATHER_CACHE_CELLS` | most 0.1°-cell × hour entries cached (1–1,000,000) | 10000 |
public struct WeatherSettings: Sendable, Equatable {
    /// Base URL of the forecast API.
    public var baseURL: String
    /// Base URL of the archive API (`nil`: the same as ``baseURL``).
    public var archiveURL: String?
    /// Upper bound on one lookup.
    public var timeout: Duration = .seconds(3)
    /// Most cells cached.
    public var cacheCells: Int = 10_000

    /// Settings for the API at `baseURL`, the rest at their defaults.
    public init(baseURL: String, archiveURL: String? = nil, timeout: Duration = .seconds(3), cacheCells: Int = 10_000) {
        self.baseURL = baseURL
        self.archiveURL = archiveURL
        self.timeout = timeout
        self.cacheCells = cacheCells
    }

    /// The settings `reader` holds (service `record-trip`), or `nil` when `…_WEATHER_URL` is unset or empty (weather
    /// off); throws ``ConfigurationError`` for a URL that is not http(s) or a value out of range.
    public static func fromEnvironment(_ reader: EnvironmentReader) throws -> WeatherSettings? {
        guard let (key, url) = reader.value("WEATHER_URL") else { return nil }
        var settings = WeatherSettings(baseURL: try httpURL(url, key: key))
        if let (archiveKey, archive) = reader.value("WEATHER_ARCHIVE_URL") {
            settings.archiveURL = try httpURL(archive, key: archiveKey)
        }
        settings.timeout = try reader.seconds("WEATHER_TIMEOUT_SECONDS", default: settings.timeout, minimum: 0.1)
        if let (timeoutKey, raw) = reader.value("WEATHER_TIMEOUT_SECONDS"), settings.timeout > .seconds(60) {
            throw ConfigurationError(key: timeoutKey, value: raw, expected: "a number of seconds between 0.1 and 60")
        }
        settings.cacheCells = try reader.integer("WEATHER_CACHE_CELLS", default: settings.cacheCells, in: 1...1_000_000)
        return settings
    }

    /// The cached Open-Meteo adapter these settings describe, sending through `httpClient`.
    public func makeProvider(httpClient: HTTPClient = .shared) -> CachedWeatherProvider<OpenMeteoWeatherProvider> {
        CachedWeatherProvider(
            upstream: OpenMeteoWeatherProvider(baseURL: baseURL, archiveURL: archiveURL, timeout: timeout, httpClient: httpClient),
            capacity: cacheCells)
    }

    private static func httpURL(_ raw: String, key: String) throws -> String {
        guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil
        else { throw ConfigurationError(key: key, value: raw, expected: "an http(s) base URL such as https://api.open-meteo.com") }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }
}
