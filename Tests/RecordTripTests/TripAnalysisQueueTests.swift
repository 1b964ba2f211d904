import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
@testable import RecordTrip
import ServiceKit
import ServiceTesting
import Testing

/// The analysis runs off the request: a finish records `TripFinishRequested` and waits for the analysis only as long
/// as allowed (`Prefer`, the configured limit); a finish left `analysing` by a crash is analysed after the restart.
@Suite("record-trip: finish → analysis off the request path (202, Prefer, recovery)")
struct TripAnalysisQueueTests {
    typealias App = TripApp

    @Test("Prefer: respond-async answers 202 analysing with Location and Retry-After; the trip is then finished once; chunks are refused",
          arguments: TestBackend.enabled)
    func respondAsync(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            let uri = "/v1/trips/\(id)"
            _ = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 0, fixes: 120), token: token)
            var prefer = HTTPFields()
            prefer[HTTPField.Name("Prefer")!] = "respond-async"
            let accepted = try await client.sendJSON(.post, "\(uri)/finish", token: token, headers: prefer)
            #expect(accepted.status == 202 && accepted.json["status"] as? String == "analysing")
            #expect(accepted.headers[.location] == uri && accepted.headers[.retryAfter] == "1")
            #expect(accepted.json["statistics"] == nil)
            let late = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(1, first: 0, fixes: 1), token: token)
            #expect(late.status == 409 && late.json["code"] as? String == "trip-finished")

            let finished = try await client.waitForJSON(uri, token: token, timeout: .seconds(30)) { $0["status"] as? String == "finished" }
            #expect(finished["statistics"] != nil && finished["route"] != nil)
            let again = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(again.status == 200 && again.json["finishedAt"] as? String == finished["finishedAt"] as? String)
            let events = try await h.store.readStream(TripAggregate.streamID(UUID(uuidString: id)!)).map(\.eventType)
            #expect(events == ["TripStarted", "TripSamplesReceived", "TripFinishRequested", "TripAnalysed", "TripFinished"])
        }
    }

    @Test("Prefer: wait and respond-async are read per RFC 7240; a client never waits longer than the service's limit")
    func preferHeader() {
        func wait(_ values: [String], most: Duration = .seconds(10)) -> Duration {
            var headers = HTTPFields()
            for value in values { headers.append(HTTPField(name: HTTPField.Name("Prefer")!, value: value)) }
            return FinishWait.requested(headers, most: most)
        }
        #expect(wait([]) == .seconds(10))
        #expect(wait(["respond-async"]) == .zero)
        #expect(wait(["wait=3"]) == .seconds(3))
        #expect(wait(["wait=60"]) == .seconds(10))
        #expect(wait(["handling=lenient, wait=2"]) == .seconds(2))
        #expect(wait(["return=minimal", "Wait=\"4\""]) == .seconds(4))
        #expect(wait(["wait=-1", "wait=abc", "wait=", "=", ",,"]) == .seconds(10))
        #expect(wait(["respond-async; foo=bar, wait=5"]) == .zero)
        #expect(wait(["wait=99999999999999999999"]) == .seconds(10))
    }

    @Test("a finish recorded just before a crash is analysed by the worker after the restart; two analyses at once record it once",
          arguments: TestBackend.enabled)
    func recoveryAfterCrash(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4()
            let token = try await App.token(rider)
            let id = try await App.create(client, token: token)
            let trip = UUID(uuidString: id)!
            _ = try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 120), token: token)
            // What a finish leaves when the process dies before its analysis lands: only the request in the log.
            let state = try await h.server.commands.requestFinish(trip: trip, rider: rider, metadata: EventMetadata(actorID: "test"))
            #expect(state.status == .analysing)
            try await h.server.trips.catchUp()
            // The service's own worker (a round every 10 s) may take it first on a slow machine.
            let pending = try await h.server.stores.trips.analysisPending(limit: 10)
            let taken = try await h.server.commands.load(trip).status == .finished
            #expect(pending == [trip] || (pending.isEmpty && taken), "pending \(pending), finished already: \(taken)")

            // A fresh queue, as after a restart; the worker's round and a concurrent direct analysis race.
            let queue = TripAnalysisQueue(commands: h.server.commands, concurrency: 2, logger: App.quiet)
            let worker = TripAnalysisWorker(queue: queue, reads: h.server.stores.trips, trips: h.server.trips, logger: App.quiet)
            #expect(try await worker.analysePending() <= 1, "the service's own worker may have taken it first")
            async let direct: TripState = h.server.commands.analyse(trip: trip)
            #expect(await queue.wait(for: trip, upTo: .seconds(60)))
            #expect(try await direct.status == .finished)
            let events = try await h.store.readStream(TripAggregate.streamID(trip)).map(\.eventType)
            #expect(events.filter { $0 == "TripFinished" }.count == 1 && events.filter { $0 == "TripAnalysed" }.count == 1)
            try await h.server.trips.catchUp()
            #expect(try await h.server.stores.trips.analysisPending(limit: 10).isEmpty)
        }
    }

    @Test("a finish whose wait times out against a slow analysis: 202 with Location and Retry-After, then finished by the weather timeout")
    func waitTimesOut() async throws {
        // The analysis waits for the weather for the harness's 5 s timeout (long, so a starved test process does not time out
        // the providers that answer at once); the finish waits 100 ms: it cannot end in time.
        try await App.with(weather: SlowWeather(delay: .seconds(20)), finishWait: .milliseconds(100)) { client, h in
            let token = try await App.token(UUID.v4())
            let id = try await App.create(client, token: token)
            let uri = "/v1/trips/\(id)"
            _ = try await client.sendJSON(.post, "\(uri)/samples", json: App.chunk(0, first: 0, fixes: 10), token: token)
            let accepted = try await client.sendJSON(.post, "\(uri)/finish", token: token)
            #expect(accepted.status == 202 && accepted.json["status"] as? String == "analysing")
            #expect(accepted.headers[.location] == uri && accepted.headers[.retryAfter] != nil)
            let finished = try await client.waitForJSON(uri, token: token, timeout: .seconds(30)) { $0["status"] as? String == "finished" }
            // The weather wait ended at its limit: had it waited for the provider's answer (20 s), the weather would be there.
            #expect(finished["weather"] == nil, "the provider answered too late")
        }
    }
}
