import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
@testable import RecordTrip
import ServiceKit
import ServiceTesting
import Testing

@Suite("record-trip: a ride is personal data (sealed log, what is published, UserErased) on both backends")
struct TripPrivacyTests {
    typealias App = TripApp

    /// Records and finishes a 60-fix trip; its id.
    static func finishedTrip(_ client: any TestClientProtocol, token: String) async throws -> String {
        let id = try await App.create(client, token: token)
        #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/samples", json: App.chunk(0, first: 0, fixes: 60), token: token).status == 201)
        #expect(try await client.sendJSON(.post, "/v1/trips/\(id)/finish", token: token).status == 200)
        return id
    }

    @Test("no coordinate rests in clear in the log: samples, analysis and start are sealed; the published TripFinished has figures and its rider, no place",
          arguments: TestBackend.enabled)
    func sealedLog(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4()
            _ = try await Self.finishedTrip(client, token: try await App.token(rider))
            let log = try await App.log(h)
            for envelope in log {
                let text = String(decoding: envelope.payload, as: UTF8.self)
                #expect(!text.contains("48.41") && !text.contains("15.60"), "\(envelope.eventType) carries a coordinate in clear")
            }
            let published = log.filter(RecordTripEvents.isPublished)
            #expect(published.map(\.eventType) == ["TripFinished"])
            let finished = try published[0].decode(TripFinished.self)
            #expect(finished.riderId == rider, "the rider's own statistics (analytics, issue 22)")
            #expect(finished.fixCount == 60)
            #expect(finished.rideStartedHour.map { $0.timeIntervalSince1970.truncatingRemainder(dividingBy: 3_600) == 0 } ?? true)
        }
    }

    @Test("the embedded feed of waypoint.trips serves only the published language: TripFinished, nothing sealed")
    func feed() async throws {
        try await App.with { client, _ in
            _ = try await Self.finishedTrip(client, token: try await App.token(UUID.v4()))
            let page = try await client.sendJSON(.get, "/v1/internal/events?after=0", token: AuthFeedStub.token)
            #expect(page.status == 200)
            #expect((page.json["events"] as? [[String: Any]])?.compactMap { $0["eventType"] as? String } == ["TripFinished"])
            #expect(try await client.sendJSON(.get, "/v1/internal/events?after=0").status == 401)
        }
    }

    @Test("UserErased on waypoint.auth: the key is destroyed, the rider's trips leave every read model and the stream reads, new trips are 403",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let rider = UUID.v4(), other = UUID.v4()
            let token = try await App.token(rider), otherToken = try await App.token(other)
            let id = try await Self.finishedTrip(client, token: token)
            let recording = try await App.create(client, token: token)
            let kept = try await Self.finishedTrip(client, token: otherToken)
            _ = try await client.waitForJSON("/v1/trips", listing: 2, under: "trips", token: token, timeout: .seconds(20))

            try await h.auth.erase(rider)
            // The worker's round is every 2 s once the consumer stored the erasure; run rounds until it did.
            let worker = RiderErasureWorker(commands: h.server.commands, reads: h.server.stores.trips, store: h.server.stores.erasures,
                                            trips: h.server.trips, checkpoints: h.storage.checkpoints, logger: App.quiet)
            try await waitUntil("the rider's trips are deleted", timeout: .seconds(30), interval: .milliseconds(100)) {
                _ = try await worker.applyPending()  // or the server's own worker does it first
                return try await App.log(h).filter { $0.eventType == TripDeleted.eventType }.count == 2
            }
            _ = try await client.waitForJSON("/v1/trips", listing: 0, under: "trips", token: token, timeout: .seconds(20))
            #expect(try await client.sendJSON(.get, "/v1/trips/\(id)", token: token).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/trips/\(recording)", token: token).status == 404)
            #expect(try await h.server.commands.samples(of: UUID(uuidString: id)!) == nil, "the sealed samples no longer open")
            let refused = try await client.sendJSON(.post, "/v1/trips", json: "{}", token: token)
            #expect(refused.status == 403 && refused.json["code"] as? String == "account-erased")
            #expect(try await client.sendJSON(.get, "/v1/trips/\(kept)", token: otherToken).status == 200, "other riders keep theirs")
            let deletions = try await App.log(h).filter { $0.eventType == TripDeleted.eventType }
            #expect(deletions.count == 2)
            #expect(deletions.allSatisfy(RecordTripEvents.isPublished), "published on waypoint.trips: analytics drops the figures too")
            #expect(try await worker.applyPending() == 0, "done once")
        }
    }

    @Test("the trips read model rebuilt from the log equals the live one", arguments: TestBackend.enabled)
    func rebuildEqualsLive(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let token = try await App.token(UUID.v4())
            let rider = UUID.v4()
            _ = try await Self.finishedTrip(client, token: token)
            _ = try await App.create(client, token: token)
            let deleted = try await Self.finishedTrip(client, token: token)
            #expect(try await client.sendJSON(.delete, "/v1/trips/\(deleted)", token: token).status == 204)
            _ = try await Self.finishedTrip(client, token: try await App.token(rider))
            try await h.server.trips.catchUp()
            let reads = h.server.stores.trips
            let owner = try #require(try await h.server.commands.load(UUID(uuidString: deleted)!).riderId)
            let live = (try await reads.all(rider: owner), try await reads.all(rider: rider), try await reads.weatherPending(limit: 100).sorted {
                $0.uuidString < $1.uuidString })
            #expect(live.0.count == 2 && live.1.count == 1)
            try await h.server.trips.rebuild()
            let rebuilt = (try await reads.all(rider: owner), try await reads.all(rider: rider), try await reads.weatherPending(limit: 100).sorted {
                $0.uuidString < $1.uuidString })
            #expect(rebuilt.0 == live.0 && rebuilt.1 == live.1 && rebuilt.2 == live.2, "rebuild = live")
        }
    }
}
