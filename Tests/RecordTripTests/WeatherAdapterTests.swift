import AsyncHTTPClient
import Foundation
import RecordTrip
import ServiceTesting
import Testing

/// The Open-Meteo adapter against the loopback stand-in: the request it sends, the hour it picks, units and codes.
@Suite struct WeatherAdapterTests {
    /// A clock a week after the fixture's day: the forecast API answers.
    static let aWeekLater: @Sendable () -> Date = { Date(timeIntervalSince1970: fixtureDay + 7 * 86_400) }

    static func adapter(_ base: String, archive: String? = nil, now: @escaping @Sendable () -> Date = aWeekLater) -> OpenMeteoWeatherProvider {
        OpenMeteoWeatherProvider(baseURL: base, archiveURL: archive, timeout: .seconds(5), now: now)
    }

    @Test("the hour containing the start is picked, in °C, m/s and mm, with its WMO code")
    func picksTheStartsHour() async throws {
        let standIn = OpenMeteoStandIn()
        try await standIn.run { base in
            // 14:37:12Z: hour 14 of the stand-in's synthetic day (−2 + 0.7·14 °C, code [..][14 mod 9], 1 + 0.25·14 m/s).
            let observation = try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                       time: fixtureDay + 14 * 3600 + 37 * 60 + 12)
            #expect(observation == WeatherObservation(temperatureC: 7.8, windSpeedMps: 4.5, windDirectionDeg: 210,
                                                      precipitationMm: 0, conditionCode: 61, source: "open-meteo"))
            // A start on the hour belongs to the hour it opens; the day's last second to hour 23.
            let onTheHour = try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                     time: fixtureDay + 15 * 3600)
            #expect(onTheHour.temperatureC == 8.5 && onTheHour.precipitationMm == 0.4 && onTheHour.conditionCode == 63)
            let lastSecond = try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                      time: fixtureDay + 86_399)
            #expect(lastSecond.temperatureC == 14.1 && lastSecond.windSpeedMps == 6.75 && lastSecond.conditionCode == 61)
        }
    }

    @Test("the request is Open-Meteo's: the five hourly variables, m/s, unixtime, GMT, the start's UTC day")
    func sendsOpenMeteosRequest() async throws {
        let standIn = OpenMeteoStandIn()
        try await standIn.run { base in
            _ = try await Self.adapter(base + "/").observation(latitude: krems.latitude, longitude: krems.longitude,
                                                               time: fixtureDay + 23 * 3600 + 59 * 60)
            let request = try #require(standIn.lastRequest)
            #expect(request.path == "/v1/forecast")
            #expect(request.query == [
                "latitude": "48.4100", "longitude": "15.6100",
                "hourly": "temperature_2m,precipitation,weather_code,wind_speed_10m,wind_direction_10m",
                "wind_speed_unit": "ms", "timeformat": "unixtime", "timezone": "GMT",
                "start_date": "2026-11-20", "end_date": "2026-11-20",
            ])
        }
    }

    @Test("a ride older than 60 days is asked of the archive API, at its own base URL")
    func oldRidesAskTheArchive() async throws {
        let standIn = OpenMeteoStandIn()
        let refused = "http://127.0.0.1:\(try closedPort())"
        try await standIn.run { base in
            let adapter = Self.adapter(refused, archive: base, now: { Date(timeIntervalSince1970: fixtureDay + 90 * 86_400) })
            let observation = try await adapter.observation(latitude: krems.latitude, longitude: krems.longitude,
                                                            time: fixtureDay + 10 * 3600)
            #expect(observation.temperatureC == 5)
            #expect(standIn.lastRequest?.path == "/v1/archive")
            #expect(standIn.lastRequest?.query["start_date"] == "2026-11-20")
            // 59 days old: still the forecast API (here refused, so the archive was not asked).
            let recent = Self.adapter(refused, archive: base, now: { Date(timeIntervalSince1970: fixtureDay + 59 * 86_400) })
            await #expect(throws: WeatherError.self) {
                try await recent.observation(latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay)
            }
            #expect(standIn.requests == 1)
        }
    }

    @Test("Open-Meteo's public forecast host goes with its archive host; any other base URL serves both APIs")
    func archiveHosts() {
        #expect(OpenMeteoWeatherProvider(baseURL: "https://api.open-meteo.com").archiveURL == "https://archive-api.open-meteo.com")
        #expect(OpenMeteoWeatherProvider.archiveURL(besides: "https://customer-api.open-meteo.com/")
            == "https://customer-archive-api.open-meteo.com/")
        #expect(OpenMeteoWeatherProvider(baseURL: "http://weather.internal:8080").archiveURL == "http://weather.internal:8080")
        #expect(OpenMeteoWeatherProvider(baseURL: "https://api.open-meteo.com", archiveURL: "http://mirror").archiveURL == "http://mirror")
    }

    @Test("a saved Open-Meteo answer is read: the values of the start's hour, as the file holds them")
    func readsTheSavedAnswer() async throws {
        let fixture = try openMeteoFixture()
        let standIn = OpenMeteoStandIn()
        standIn.behave(.replay(fixture))
        // The oracle: the file parsed independently of the adapter's decoder.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(fixture.utf8)) as? [String: Any])
        let hourly = try #require(json["hourly"] as? [String: [Any]])
        let index = try #require((hourly["time"] as? [Int])?.firstIndex(of: Int(fixtureDay) + 14 * 3600))
        let expected = WeatherObservation(
            temperatureC: try #require(hourly["temperature_2m"]?[index] as? Double),
            windSpeedMps: try #require(hourly["wind_speed_10m"]?[index] as? Double),
            windDirectionDeg: (hourly["wind_direction_10m"]?[index] as? Int).map(Double.init),
            precipitationMm: try #require(hourly["precipitation"]?[index] as? Double),
            conditionCode: try #require(hourly["weather_code"]?[index] as? Int), source: "open-meteo")
        try await standIn.run { base in
            let observation = try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                       time: fixtureDay + 14 * 3600 + 1_234)
            #expect(observation == expected)
            #expect(observation.conditionCode == 61 && observation.precipitationMm > 0 && observation.windDirectionDeg != nil)
        }
    }

    @Test("the stand-in answers in the saved answer's shape: the same keys, units and 24 hours")
    func standInSpeaksTheRealJSON() async throws {
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(try openMeteoFixture().utf8)) as? [String: Any])
        let standIn = OpenMeteoStandIn()
        let served = try await standIn.run { base in
            let url = try OpenMeteoRequest(api: .forecast, latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay).url(base: base)
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
            #expect(response.status == .ok)
            return Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: served) as? [String: Any])
        #expect(Set(answer.keys) == Set(saved.keys))
        #expect(answer["hourly_units"] as? [String: String] == saved["hourly_units"] as? [String: String])
        let (servedHours, savedHours) = (try #require(answer["hourly"] as? [String: [Any]]), try #require(saved["hourly"] as? [String: [Any]]))
        #expect(Set(servedHours.keys) == Set(savedHours.keys))
        #expect(servedHours.values.allSatisfy { $0.count == 24 } && savedHours.values.allSatisfy { $0.count == 24 })
        #expect(servedHours["time"] as? [Int] == savedHours["time"] as? [Int])
    }

    @Test("an answer in km/h, °F or inches (a server that ignored the units asked for) is converted")
    func convertsUnits() async throws {
        let fixture = try openMeteoFixture()
        let standIn = OpenMeteoStandIn()
        standIn.behave(.replay(fixture.replacingOccurrences(of: "\"wind_speed_10m\":\"m/s\"", with: "\"wind_speed_10m\":\"km/h\"")))
        try await standIn.run { base in
            let observation = try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                       time: fixtureDay + 14 * 3600)
            #expect(abs(observation.windSpeedMps - 4.83 / 3.6) < 1e-9)
            standIn.behave(.replay(fixture.replacingOccurrences(of: "\"wind_speed_10m\":\"m/s\"", with: "\"wind_speed_10m\":\"furlong/fortnight\"")))
            await #expect(throws: WeatherError.malformedResponse("wind speed in unknown unit furlong/fortnight")) {
                try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay)
            }
        }
    }

    @Test("an hour served as nulls, or outside the answer's window, is missing")
    func missingHours() async throws {
        let standIn = OpenMeteoStandIn(weather: { _, _, _ in nil })
        try await standIn.run { base in
            await #expect(throws: WeatherError.hourMissing(fixtureDay + 60)) {
                try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay + 60)
            }
            standIn.behave(.replay(try openMeteoFixture()))
            await #expect(throws: WeatherError.hourMissing(fixtureDay + 86_400)) {
                try await Self.adapter(base).observation(latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay + 86_400)
            }
        }
    }

    @Test("a place or time that cannot be asked about is refused before any request", arguments: [
        (Double.nan, 15.0, fixtureDay), (91.0, 15.0, fixtureDay), (48.0, -180.5, fixtureDay), (48.0, 15.0, Double.infinity),
        (48.0, 15.0, -2e9), (48.0, 15.0, 1e300),
    ])
    func refusesBadQueries(latitude: Double, longitude: Double, time: Double) async throws {
        let standIn = OpenMeteoStandIn()
        try await standIn.run { base in
            await #expect(throws: WeatherError.self) {
                try await Self.adapter(base).observation(latitude: latitude, longitude: longitude, time: time)
            }
            #expect(standIn.requests == 0)
        }
    }
}
