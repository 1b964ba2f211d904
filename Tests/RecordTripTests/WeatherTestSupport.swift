import AsyncHTTPClient
import NIOCore
import Foundation
import RecordTrip
import Synchronization

/// 2026-11-20T00:00:00Z, the day of the fixture `Tests/Fixtures/OpenMeteo/forecast-krems.json`.
let fixtureDay = 1_795_132_800.0
/// Krems an der Donau.
let krems = (latitude: 48.41, longitude: 15.61)

/// The saved Open-Meteo answer.
func openMeteoFixture(file: String = #filePath) throws -> String {
    let url = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/OpenMeteo/forecast-krems.json")
    return try String(contentsOf: url, encoding: .utf8)
}

/// A provider for cache tests: answers from `answer`, counts and records its calls.
final class ScriptedWeather: WeatherProvider {
    struct Call: Equatable {
        var latitude: Double
        var longitude: Double
        var time: Double
    }

    private let state = Mutex<(calls: [Call], failing: Bool, held: Bool)>(([], false, false))
    private let delay: Duration

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    var calls: [Call] { state.withLock { $0.calls } }

    /// Fails every call with ``WeatherError/unreachable(_:)`` from now on (or stops failing).
    func fail(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    /// Holds every call until released (or releases them).
    func hold(_ held: Bool) {
        state.withLock { $0.held = held }
    }

    func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation {
        let failing = state.withLock { state in
            state.calls.append(Call(latitude: latitude, longitude: longitude, time: time))
            return state.failing
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        while state.withLock({ $0.held }) { try await Task.sleep(for: .milliseconds(5)) }
        if failing { throw WeatherError.unreachable("scripted") }
        return WeatherObservation(temperatureC: time / 3600, windSpeedMps: latitude, windDirectionDeg: longitude,
                                  precipitationMm: 0, conditionCode: 1, source: "scripted")
    }
}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}

/// GETs `url`; the status and the body as text.
func httpGet(_ url: String) async throws -> (status: Int, body: String) {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body))
}
