import RecordTrip
import ServiceKit
import Testing

/// record-trip's weather keys.
@Suite struct WeatherSettingsTests {
    static func settings(_ environment: [String: String]) throws -> WeatherSettings? {
        try WeatherSettings.fromEnvironment(EnvironmentReader(serviceName: "record-trip", environment: environment))
    }

    @Test("no weather URL, or an empty one, turns weather off")
    func off() throws {
        #expect(try Self.settings([:]) == nil)
        #expect(try Self.settings(["WAYPOINT_RECORD_TRIP_WEATHER_URL": ""]) == nil)
    }

    @Test("the URL, archive URL, timeout and cache size are read; defaults otherwise")
    func read() throws {
        #expect(try Self.settings(["WAYPOINT_RECORD_TRIP_WEATHER_URL": "https://api.open-meteo.com/"])
            == WeatherSettings(baseURL: "https://api.open-meteo.com", archiveURL: nil, timeout: .seconds(3), cacheCells: 10_000))
        #expect(try Self.settings([
            "WAYPOINT_RECORD_TRIP_WEATHER_URL": "http://127.0.0.1:9000",
            "WAYPOINT_RECORD_TRIP_WEATHER_ARCHIVE_URL": "https://archive-api.open-meteo.com",
            "WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_SECONDS": "1.5",
            "WAYPOINT_RECORD_TRIP_WEATHER_CACHE_CELLS": "50",
        ]) == WeatherSettings(baseURL: "http://127.0.0.1:9000", archiveURL: "https://archive-api.open-meteo.com",
                              timeout: .milliseconds(1_500), cacheCells: 50))
    }

    @Test("a bad value names its key", arguments: [
        ("WAYPOINT_RECORD_TRIP_WEATHER_URL", "api.open-meteo.com"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_URL", "ftp://api.open-meteo.com"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_URL", "https://api.open-meteo.com/v1/forecast?latitude=1"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_ARCHIVE_URL", "archive"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_SECONDS", "0"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_TIMEOUT_SECONDS", "61"),
        ("WAYPOINT_RECORD_TRIP_WEATHER_CACHE_CELLS", "0"),
    ])
    func refused(key: String, value: String) throws {
        var environment = ["WAYPOINT_RECORD_TRIP_WEATHER_URL": "https://api.open-meteo.com"]
        environment[key] = value
        #expect { try Self.settings(environment) } throws: { ($0 as? ConfigurationError)?.key == key }
    }
}
