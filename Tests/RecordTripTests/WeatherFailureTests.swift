import AsyncHTTPClient
import Foundation
@testable import RecordTrip
import ServiceTesting
import Testing

/// Every way the provider fails gives a typed ``WeatherError`` quickly: it never hangs, and never crashes.
@Suite struct WeatherFailureTests {
    static func adapter(_ base: String, timeout: Duration = .seconds(2)) -> OpenMeteoWeatherProvider {
        OpenMeteoWeatherProvider(baseURL: base, timeout: timeout, now: { Date(timeIntervalSince1970: fixtureDay + 86_400) })
    }

    /// Runs a lookup against `base` and returns its error. Which error it is proves what ended the lookup (the timeout,
    /// not a late answer, which would be an observation); no wall-clock bounds — a test process beside CPU-heavy suites
    /// was seen starved for 29 s.
    static func failure(_ base: String, timeout: Duration = .seconds(2)) async -> (any Error)? {
        do {
            _ = try await adapter(base, timeout: timeout).observation(latitude: krems.latitude, longitude: krems.longitude,
                                                                      time: fixtureDay + 3600)
            return nil
        } catch {
            return error
        }
    }

    @Test("a provider that is down (connection refused) fails by the timeout: AsyncHTTPClient retries connecting until then")
    func refused() async throws {
        let error = await Self.failure("http://127.0.0.1:\(try closedPort())", timeout: .milliseconds(500))
        // When the deadline strikes, AsyncHTTPClient reports the last connection error if it has one, else the deadline.
        switch error as? WeatherError {
        case .timedOut(.milliseconds(500))?, .unreachable?: break
        default: Issue.record("expected timedOut or unreachable, got \(String(describing: error))")
        }
    }

    @Test("with a client that does not retry connecting, a refused connection is unreachable at once")
    func refusedWithoutRetries() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let adapter = OpenMeteoWeatherProvider(baseURL: "http://127.0.0.1:\(try closedPort())", timeout: .seconds(5), httpClient: client,
                                               now: { Date(timeIntervalSince1970: fixtureDay + 86_400) })
        var failure: (any Error)?
        do {
            _ = try await adapter.observation(latitude: krems.latitude, longitude: krems.longitude, time: fixtureDay)
        } catch {
            failure = error
        }
        try await client.shutdown()
        guard case .unreachable? = failure as? WeatherError else {
            Issue.record("expected unreachable, got \(String(describing: failure))")
            return
        }
    }

    @Test("a provider behind a proxy that says 503 is an upstream status")
    func down() async throws {
        let standIn = OpenMeteoStandIn()
        standIn.behave(.down)
        try await standIn.run { base in
            let error = await Self.failure(base)
            #expect(error as? WeatherError == .upstreamStatus(503, reason: nil))
        }
    }

    @Test("a 500 or a 400 carries Open-Meteo's reason", arguments: [500, 400, 429])
    func errorStatus(status: Int) async throws {
        let standIn = OpenMeteoStandIn()
        standIn.behave(.status(status))
        try await standIn.run { base in
            let error = await Self.failure(base)
            #expect(error as? WeatherError == .upstreamStatus(status, reason: "stand-in told to answer \(status)"))
        }
    }

    @Test("a slow provider, or an answer that stalls after its head, times out after the configured timeout: the timeout covers the body",
          arguments: [OpenMeteoStandIn.Behaviour.slow(.seconds(20)), .stallingBody(.seconds(20))])
    func slow(behaviour: OpenMeteoStandIn.Behaviour) async throws {
        let standIn = OpenMeteoStandIn()
        standIn.behave(behaviour)
        try await standIn.run { base in
            let error = await Self.failure(base, timeout: .milliseconds(300))
            #expect(error as? WeatherError == .timedOut(.milliseconds(300)))
        }
    }

    @Test("the timeout bounds the whole exchange, a body that never ends included")
    func boundsTheWholeExchange() async throws {
        await #expect(throws: WeatherError.timedOut(.milliseconds(200))) {
            try await OpenMeteoWeatherProvider.within(.milliseconds(200)) { try await Task.sleep(for: .seconds(30)) }
        }
    }

    @Test("garbage, a wrong shape, arrays of unequal length and an oversized answer are malformed", arguments: [
        "<html><body>Bad gateway", "{\"hourly\":{\"time\":[1795132800]}}", "[]", "",
        "{\"hourly\":{\"time\":[1795132800,1795136400],\"temperature_2m\":[1.0],\"precipitation\":[0,0],\"weather_code\":[1,1],\"wind_speed_10m\":[1,1]}}",
        "{\"hourly\":{\"time\":[1795136400],\"temperature_2m\":[1.0],\"precipitation\":[0],\"weather_code\":[100],\"wind_speed_10m\":[1]}}",
        "{\"hourly\":{\"time\":[1795136400],\"temperature_2m\":[\"warm\"],\"precipitation\":[0],\"weather_code\":[1],\"wind_speed_10m\":[1]}}",
        String(repeating: " ", count: 1 << 21),
    ])
    func malformed(body: String) async throws {
        let standIn = OpenMeteoStandIn()
        standIn.behave(body.hasPrefix("<html") ? .garbage : .replay(body))
        try await standIn.run { base in
            let error = await Self.failure(base)
            guard case .malformedResponse? = error as? WeatherError else {
                Issue.record("expected malformedResponse, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("the saved answer cut at every byte, or with bytes changed, gives an observation or a WeatherError, never a crash")
    func damagedAnswers() throws {
        let fixture = Data(try openMeteoFixture().utf8)
        let time = fixtureDay + 14 * 3600
        for length in 0..<fixture.count {
            #expect(throws: WeatherError.self) {
                try OpenMeteoHourlyAnswer.decode(fixture.prefix(length)).observation(at: time, source: "open-meteo")
            }
        }
        // Seeded changes of 1–8 bytes to printable characters (a SplitMix64 stream, so a failure repeats).
        var state: UInt64 = 0x5EED_0019
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var (decoded, rejected) = (0, 0)
        for _ in 0..<2_000 {
            var damaged = fixture
            for _ in 0...(next() % 8) {
                damaged[Int(next() % UInt64(damaged.count))] = UInt8(32 + next() % 95)
            }
            do {
                let observation = try OpenMeteoHourlyAnswer.decode(damaged).observation(at: time, source: "open-meteo")
                #expect(observation.temperatureC.isFinite && (0...99).contains(observation.conditionCode))
                decoded += 1
            } catch {
                rejected += 1  // typed throws: the compiler guarantees a WeatherError
            }
        }
        #expect(decoded > 0 && rejected > 0, "\(decoded) read, \(rejected) rejected")
    }

    @Test("the stand-in refuses what Open-Meteo refuses, and the adapter reports its reason")
    func standInValidates() async throws {
        let standIn = OpenMeteoStandIn()
        try await standIn.run { base in
            let (status, body) = try await httpGet(base + "/v1/forecast?latitude=48.4&longitude=15.6&hourly=temperature_2m,tempreature_2m")
            #expect(status == 400)
            #expect(body.contains("\"error\":true") && body.contains("invalid String value tempreature_2m"))
            let (archiveStatus, _) = try await httpGet(base + "/v1/archive?latitude=48.4&longitude=15.6&hourly=precipitation")
            #expect(archiveStatus == 400)
        }
    }
}
