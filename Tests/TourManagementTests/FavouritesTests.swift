import Contracts
import EventSourcing
import Foundation
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: favourites (add idempotently, remove, list with tour summaries) on both backends")
struct FavouritesTests {
    typealias App = ReviewApp

    /// Waits until discovery (running in the background; its tables may not exist yet) lists `tours`.
    static func waitForListing(_ h: ReviewHarness, _ tours: [UUID]) async throws {
        try await waitUntil("discovery lists \(tours.count) tours", timeout: .seconds(20), interval: .milliseconds(10)) {
            for tour in tours where (try? await h.catalog.tour(tour)) == nil { return false }
            return true
        }
    }

    @Test("PUT adds (201, then 200), DELETE removes (204, again 204), GET lists newest first with summaries; unpublished tours stay, unavailable",
          arguments: TestBackend.enabled)
    func favourites(backend: TestBackend) async throws {
        try await App.with(backend) { client, h in
            let guide = UUID.v4(), user = UUID.v4(), other = UUID.v4()
            let tours = (0..<3).map { _ in UUID.v4() }
            for (index, tour) in tours.enumerated() { try await h.publish(tour: tour, guide: guide, title: "Tour \(index)") }
            try await Self.waitForListing(h, tours)
            let token = try await TokenForge.token(user, .traveller)
            func uri(_ tour: UUID) -> String { "/v1/me/favourites/\(tour.uuidString.lowercased())" }

            #expect(try await App.send(client, .get, "/v1/me/favourites").status == 401)
            #expect(try await App.send(client, .put, uri(tours[0])).status == 401)
            let added = try await App.send(client, .put, uri(tours[0]), token: token)
            #expect(added.status == 201 && added.json["tourId"] as? String == tours[0].uuidString.lowercased())
            let again = try await App.send(client, .put, uri(tours[0]), token: token)
            #expect(again.status == 200 && again.json["favouritedAt"] as? String == added.json["favouritedAt"] as? String, "idempotent")
            #expect(try await App.send(client, .put, uri(tours[1]), token: token).status == 201)
            #expect(try await App.send(client, .put, uri(tours[2]), token: token).status == 201)
            let unknown = try await App.send(client, .put, uri(UUID.v4()), token: token)
            #expect(unknown.status == 404 && unknown.json["code"] as? String == "unknown-tour")
            #expect(try await App.send(client, .put, "/v1/me/favourites/nope", token: token).status == 404)

            // Read your writes: the list is folded from the traveller's stream.
            let listed = try await App.send(client, .get, "/v1/me/favourites", token: token)
            #expect(listed.status == 200)
            let entries = try #require(listed.json["favourites"] as? [[String: Any]])
            #expect(entries.compactMap { $0["tourId"] as? String } == tours.reversed().map { $0.uuidString.lowercased() })
            #expect((entries[0]["tour"] as? [String: Any])?["title"] as? String == "Tour 2")
            #expect(((entries[0]["tour"] as? [String: Any])?["destination"] as? [String: Any])?["name"] as? String == "Krems an der Donau")
            #expect(((entries[0]["tour"] as? [String: Any])?["guide"] as? [String: Any])?["name"] as? String == "Guide")
            #expect(entries.allSatisfy { $0["available"] as? Bool == true })
            #expect((try await App.send(client, .get, "/v1/me/favourites", token: try await TokenForge.token(other, .traveller))
                .json["favourites"] as? [Any])?.isEmpty == true, "favourites are per user")

            // Pages.
            let first = try await App.send(client, .get, "/v1/me/favourites?limit=2", token: token)
            #expect((first.json["favourites"] as? [Any])?.count == 2)
            let cursor = try #require(first.json["nextCursor"] as? String)
            let second = try await App.send(client, .get, "/v1/me/favourites?limit=2&cursor=\(cursor)", token: token)
            #expect((second.json["favourites"] as? [[String: Any]])?.compactMap { $0["tourId"] as? String } == [tours[0].uuidString.lowercased()])
            #expect(second.json["nextCursor"] == nil)

            // Unpublished: still listed, unavailable, without a summary.
            try await h.unpublish(tour: tours[1])
            _ = try await client.waitForJSON("/v1/me/favourites", token: token, timeout: .seconds(20)) {
                (($0["favourites"] as? [[String: Any]]) ?? []).contains { $0["available"] as? Bool == false }
            }
            let withdrawn = try #require((try await App.send(client, .get, "/v1/me/favourites", token: token).json["favourites"] as? [[String: Any]])?
                .first { $0["tourId"] as? String == tours[1].uuidString.lowercased() })
            #expect(withdrawn["available"] as? Bool == false && withdrawn["tour"] == nil)

            #expect(try await App.send(client, .delete, uri(tours[1]), token: token).status == 204)
            #expect(try await App.send(client, .delete, uri(tours[1]), token: token).status == 204, "removing again is the same success")
            #expect(try await App.send(client, .delete, "/v1/me/favourites/nope", token: token).status == 204)
            let remaining = try await App.send(client, .get, "/v1/me/favourites", token: token)
            #expect((remaining.json["favourites"] as? [[String: Any]])?.compactMap { $0["tourId"] as? String }
                == [tours[2], tours[0]].map { $0.uuidString.lowercased() })
            let events = try await h.store.readStream(FavouritesAggregate.streamID(user), fromVersion: 1, limit: 100)
            #expect(events.map(\.eventType) == ["TourFavourited", "TourFavourited", "TourFavourited", "TourUnfavourited"],
                    "idempotent calls append nothing")
        }
    }

    @Test("at most 500 favourites; the list loads from a snapshot plus a short tail")
    func limitAndSnapshots() async throws {
        try await ReviewHarness.with(.sqlite) { h in
            let favourites = Favourites(store: h.store, catalog: h.catalog)
            let user = UUID.v4()
            var state = FavouritesState()
            for index in 0..<FavouritesAggregate.limit {
                state = FavouritesAggregate.apply(state, .favourited(TourFavourited(tourId: .v4(), userId: user,
                                                                                    favouritedAt: ReviewHarness.t0.addingTimeInterval(Double(index)))))
            }
            #expect(throws: Problem.self) { try FavouritesAggregate.decide(.add(tourId: .v4(), userId: user, at: ReviewHarness.t0), state) }
            #expect(try FavouritesAggregate.decide(.remove(tourId: .v4(), userId: user, at: ReviewHarness.t0), state).isEmpty)

            let tour = UUID.v4()
            try await h.publish(tour: tour, guide: UUID.v4())
            try await h.discovery.catchUp()
            for _ in 0..<60 {
                try await favourites.add(tourId: tour, user: user)
                try await favourites.remove(tourId: tour, user: user)
            }
            try await favourites.add(tourId: tour, user: user)
            #expect(try await h.store.loadSnapshot(of: FavouritesAggregate.streamID(user)) != nil)
            let page = try await favourites.list(user: user, cursor: nil, limit: 10)
            #expect(page.favourites.map(\.tourId) == [tour] && page.favourites.first?.tour?.tourId == tour)
        }
    }
}
