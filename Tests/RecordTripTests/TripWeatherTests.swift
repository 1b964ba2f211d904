import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
@testable import RecordTrip
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: weather at the start; a failing provider never fails the trip, the backfill fills it in later")
struct TripWeatherTests {
    typealias App = TripApp

    @Test("a provider that answers: the finished trip shows the weather, recorded as an event in the finish's append")
    func answers() async throws {
        let weather = StubWeather()
        try await App.with(weather: weather) { client, h in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 10), token: token).status == 201)
            let finished = try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token)
            #expect((finished.json["weather"] as? [String: Any])?["conditionCode"] as? Int == 61)
            #expect(try await App.log(h).contains { $0.eventType == TripWeatherRecorded.eventType })
        }
    }

    @Test("a provider that is down: the trip finishes without weather; the backfill worker records it once the provider answers")
    func backfill() async throws {
        let weather = StubWeather(failing: true)
        try await App.with(weather: weather) { client, h in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 10), token: token).status == 201)
            let finished = try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token)
            #expect(finished.status == 200 && finished.json["weather"] == nil)
            let worker = WeatherBackfillWorker(commands: h.server.commands, reads: h.server.stores.trips, trips: h.server.trips, logger: App.quiet)
            try await h.server.trips.catchUp()
            #expect(try await worker.fillPending() == 0, "still down: nothing recorded, nothing failed")
            weather.failing = false
            #expect(try await worker.fillPending() == 1)
            #expect((try await client.sendJSON(.get, "/v1/trips/\(id)", token: token).json["weather"] as? [String: Any])?["source"] as? String == "stub")
            try await h.server.trips.catchUp()
            #expect(try await worker.fillPending() == 0, "filled once")
        }
    }
}
