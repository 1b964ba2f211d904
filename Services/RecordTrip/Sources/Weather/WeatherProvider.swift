import Foundation

/// The weather at a place and time, as the ride's start shows it.
public struct WeatherObservation: Codable, Sendable, Hashable {
    /// Air temperature 2 m above ground, °C.
    public var temperatureC: Double
    /// Wind speed 10 m above ground, m/s.
    public var windSpeedMps: Double
    /// Direction the wind comes from, degrees clockwise from north.
    public var windDirectionDeg: Double?
    /// Precipitation in the hour, mm.
    public var precipitationMm: Double
    /// WMO weather interpretation code (0 clear … 99 thunderstorm with hail), as Open-Meteo reports it.
    public var conditionCode: Int
    /// Who said so (the provider's name), for attribution.
    public var source: String

    public init(temperatureC: Double, windSpeedMps: Double, windDirectionDeg: Double?, precipitationMm: Double,
                conditionCode: Int, source: String) {
        self.temperatureC = temperatureC
        self.windSpeedMps = windSpeedMps
        self.windDirectionDeg = windDirectionDeg
        self.precipitationMm = precipitationMm
        self.conditionCode = conditionCode
        self.source = source
    }
}

/// Where weather comes from (DESIGN: an outside provider sits behind a protocol with one real HTTP adapter).
/// A provider that is down or slow throws; the caller leaves the weather absent and tries again later.
public protocol WeatherProvider: Sendable {
    /// The weather at `latitude`, `longitude` (WGS 84 degrees) at `time` (seconds since the Unix epoch, UTC).
    func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation
}
