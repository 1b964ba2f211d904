import Foundation
import RecordTrip
import ServiceTesting
import Testing

/// The cache per 0.1° cell and hour in front of any provider.
@Suite struct WeatherCacheTests {
    /// A start at 14:05Z on the fixture's day in the cell [48.4, 48.5) × [15.6, 15.7).
    static let start = fixtureDay + 14 * 3600 + 300

    @Test("one upstream call serves 50 concurrent lookups anywhere in one cell and hour")
    func sharesOneCall() async throws {
        let upstream = ScriptedWeather(delay: .milliseconds(200))
        let cache = CachedWeatherProvider(upstream: upstream)
        let observations = try await withThrowingTaskGroup(of: WeatherObservation.self) { group in
            for i in 0..<50 {
                group.addTask {
                    try await cache.observation(latitude: 48.401 + Double(i) * 0.0019, longitude: 15.699 - Double(i) * 0.0019,
                                                time: Self.start + Double(i) * 60)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(observations.count == 50 && Set(observations).count == 1)
        // Asked for the cell's centre at the start of the hour, whoever came first.
        #expect(upstream.calls == [ScriptedWeather.Call(latitude: 48.45, longitude: 15.65, time: fixtureDay + 14 * 3600)])
        #expect(await cache.upstreamCalls == 1)
    }

    @Test("lookups arriving while the call is in flight join it, and share its failure too")
    func joinsTheCallInFlight() async throws {
        let upstream = ScriptedWeather()
        upstream.hold(true)
        upstream.fail(true)
        // Failures not kept at all: only joining the call in flight can spare the provider.
        let cache = CachedWeatherProvider(upstream: upstream, failureLifetime: .zero)
        let failures = Task {
            await withTaskGroup(of: (any Error)?.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start + Double(i))
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1 as? WeatherError) }
            }
        }
        try await waitUntil("19 lookups joined the held call") { await cache.joinedCalls == 19 }
        upstream.hold(false)
        let errors = await failures.value
        #expect(errors == Array(repeating: WeatherError.unreachable("scripted"), count: 20))
        #expect(upstream.calls.count == 1)
    }

    @Test("a different hour or a different cell asks again; the same cell and hour does not")
    func keysOnCellAndHour() async throws {
        let upstream = ScriptedWeather()
        let cache = CachedWeatherProvider(upstream: upstream)
        _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
        _ = try await cache.observation(latitude: 48.49, longitude: 15.69, time: Self.start + 3_000)   // same cell, same hour
        #expect(upstream.calls.count == 1)
        _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start + 3_600)   // next hour
        _ = try await cache.observation(latitude: 48.51, longitude: 15.61, time: Self.start)           // cell to the north
        _ = try await cache.observation(latitude: 48.41, longitude: 15.59, time: Self.start)           // cell to the west
        _ = try await cache.observation(latitude: -48.41, longitude: -15.61, time: Self.start)         // southern, western
        #expect(upstream.calls.count == 5)
        #expect(Set(upstream.calls.map(\.latitude)) == [48.45, 48.55, -48.45])
    }

    @Test("the cache holds at most its capacity, and an evicted cell is asked again")
    func bounded() async throws {
        let upstream = ScriptedWeather()
        let cache = CachedWeatherProvider(upstream: upstream, capacity: 3)
        for cell in 0..<5 {
            _ = try await cache.observation(latitude: 40 + Double(cell) * 0.1 + 0.05, longitude: 15, time: Self.start)
            #expect(await cache.count <= 3)
        }
        _ = try await cache.observation(latitude: 40.45, longitude: 15, time: Self.start)   // the newest: still cached
        #expect(upstream.calls.count == 5)
        _ = try await cache.observation(latitude: 40.05, longitude: 15, time: Self.start)   // the oldest: evicted
        #expect(upstream.calls.count == 6)
        #expect(await cache.count == 3)
    }

    @Test("many refreshes of one cell keep the cache's bookkeeping bounded")
    func refreshesStayBounded() async throws {
        let clock = ManualClock()
        let upstream = ScriptedWeather()
        let cache = CachedWeatherProvider(upstream: upstream, capacity: 2, successLifetime: .seconds(1), now: { clock.now })
        for _ in 0..<3_000 {
            _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
            clock.advance(by: .seconds(2))
        }
        #expect(upstream.calls.count == 3_000)
        #expect(await cache.count == 1)
    }

    @Test("a failure is answered from the cache only briefly; then the provider is asked again")
    func failuresAreShortLived() async throws {
        let clock = ManualClock()
        let upstream = ScriptedWeather()
        upstream.fail(true)
        let cache = CachedWeatherProvider(upstream: upstream, failureLifetime: .seconds(30), now: { clock.now })
        for _ in 0..<3 {
            await #expect(throws: WeatherError.unreachable("scripted")) {
                try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
            }
        }
        #expect(upstream.calls.count == 1)
        upstream.fail(false)
        clock.advance(by: .seconds(31))
        let observation = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
        #expect(observation.source == "scripted" && upstream.calls.count == 2)
    }

    @Test("an observation is kept for its lifetime, then asked again")
    func successesExpire() async throws {
        let clock = ManualClock()
        let upstream = ScriptedWeather()
        let cache = CachedWeatherProvider(upstream: upstream, successLifetime: .seconds(6 * 3600), now: { clock.now })
        _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
        clock.advance(by: .seconds(6 * 3600 - 1))
        _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
        #expect(upstream.calls.count == 1)
        clock.advance(by: .seconds(2))
        _ = try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start)
        #expect(upstream.calls.count == 2)
    }

    @Test("a bad place or time is refused without asking the provider")
    func refusesBadQueries() async throws {
        let upstream = ScriptedWeather()
        let cache = CachedWeatherProvider(upstream: upstream)
        await #expect(throws: WeatherError.invalidQuery(latitude: 95, longitude: 15, time: Self.start)) {
            try await cache.observation(latitude: 95, longitude: 15, time: Self.start)
        }
        await #expect(throws: WeatherError.self) { try await cache.observation(latitude: .nan, longitude: 15, time: Self.start) }
        #expect(upstream.calls.isEmpty)
    }

    @Test("in front of the real adapter: 20 concurrent lookups while the stand-in is slow make one HTTP request")
    func oneRequestUpstream() async throws {
        let standIn = OpenMeteoStandIn()
        standIn.behave(.slow(.milliseconds(300)))
        try await standIn.run { base in
            let adapter = OpenMeteoWeatherProvider(baseURL: base, timeout: .seconds(5),
                                                   now: { Date(timeIntervalSince1970: fixtureDay + 86_400) })
            let cache = CachedWeatherProvider(upstream: adapter)
            let temperatures = try await withThrowingTaskGroup(of: Double.self) { group in
                for i in 0..<20 {
                    group.addTask { try await cache.observation(latitude: 48.41, longitude: 15.61, time: Self.start + Double(i)).temperatureC }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(temperatures == Array(repeating: 7.8, count: 20))
            #expect(standIn.requests == 1)
            #expect(standIn.lastRequest?.query["latitude"] == "48.4500")
        }
    }
}
