import Contracts
import Foundation
import Geo
@testable import Navigation
import ServiceKit
import Testing

/// The places aggregate without a database: decide and apply on plain values (sealed values are opaque tokens here).
@Suite("navigation: places — decide and apply")
struct PlacesAggregateTests {
    static let user = UUID()
    static let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    static func sealed(_ text: String) -> SealedPersonalData { SealedPersonalData(subject: user.uuidString.lowercased(), sealed: text) }

    static func run(_ state: PlacesState, _ action: PlacesCommand.Action, at: Date = t0) throws -> (PlacesState, [PlacesEvent]) {
        let events = try PlacesAggregate.decide(PlacesCommand(user: user, at: at, action), state)
        return (events.reduce(state, PlacesAggregate.apply), events)
    }

    /// A point `metres` north of `base` (`base` is in Krems).
    static func north(_ metres: Double, of base: Coordinate = try! Coordinate(latitude: 48.41, longitude: 15.60)) -> Coordinate {
        try! Coordinate(latitude: base.latitude + metres / 111_195, longitude: base.longitude)
    }

    /// Records a use of `coordinate` named `name` on `state`, the state's recents opened as `opened` says.
    static func record(_ state: PlacesState, _ coordinate: Coordinate, name: String? = nil, opened: [UUID: OpenedRecent],
                       at: Date, id: UUID = UUID()) throws -> (PlacesState, [PlacesEvent]) {
        let use = RecentUse(id: id, name: name, coordinate: coordinate, sealedName: name.map { sealed("name:\($0)") },
                            sealedPlace: sealed("place"), kind: .searched, opened: opened)
        return try run(state, .recordRecent(use), at: at)
    }

    @Test("favourites: add (once per id), rename, remove; unknown ids are unknown-place; at most 200 (too-many-favourites)")
    func favourites() throws {
        let id = UUID()
        var (state, events) = try Self.run(PlacesState(), .addFavourite(id: id, name: Self.sealed("home"), place: Self.sealed("p")))
        #expect(events.count == 1 && state.favourites[id]?.name == Self.sealed("home"))
        #expect(try Self.run(state, .addFavourite(id: id, name: Self.sealed("again"), place: Self.sealed("p"))).1.isEmpty, "same id: no change")
        (state, events) = try Self.run(state, .renameFavourite(id: id, name: Self.sealed("home 2")), at: Self.t0 + 60)
        #expect(state.favourites[id]?.name == Self.sealed("home 2") && state.favourites[id]?.updatedAt == Self.t0 + 60)
        #expect(throws: PlacesError.unknownPlace) { try Self.run(state, .renameFavourite(id: UUID(), name: Self.sealed("x"))) }
        #expect(throws: PlacesError.unknownPlace) { try Self.run(state, .removeFavourite(id: UUID())) }
        (state, events) = try Self.run(state, .removeFavourite(id: id))
        #expect(state.favourites.isEmpty)
        #expect(throws: PlacesError.unknownPlace) { try Self.run(state, .removeFavourite(id: id)) }

        for _ in 0..<PlacesAggregate.favouriteLimit {
            state = try Self.run(state, .addFavourite(id: UUID(), name: Self.sealed("n"), place: Self.sealed("p"))).0
        }
        #expect(state.favourites.count == 200)
        #expect(throws: PlacesError.tooManyFavourites) { try Self.run(state, .addFavourite(id: UUID(), name: Self.sealed("n"), place: Self.sealed("p"))) }
        #expect(PlacesError.tooManyFavourites.problem.status == .conflict && PlacesError.tooManyFavourites.problem.code == "too-many-favourites")
    }

    @Test("the same-spot rule: within 25 m and not named differently; the same name wins, then the nearest")
    func sameSpot() {
        let base = Self.north(0)
        let (a, b, c) = (UUID(), UUID(), UUID())
        let recents = [(a, OpenedRecent(name: "Café Central", coordinate: Self.north(10))),
                       (b, OpenedRecent(name: nil, coordinate: Self.north(5))),
                       (c, OpenedRecent(name: "Bäckerei", coordinate: Self.north(24)))]
        #expect(PlacesRules.sameSpot(name: nil, coordinate: base, among: recents) == b, "unnamed: the nearest")
        #expect(PlacesRules.sameSpot(name: " café central ", coordinate: base, among: recents) == a, "the same name (case, accents, spaces folded) wins")
        #expect(PlacesRules.sameSpot(name: "Baeckerei Nord", coordinate: base, among: [recents[0], recents[2]]) == nil,
                "two named places next door stay two")
        #expect(PlacesRules.sameSpot(name: "Bäckerei", coordinate: base, among: [recents[2]]) == c, "24 m: the same spot")
        #expect(PlacesRules.sameSpot(name: nil, coordinate: Self.north(-2), among: [recents[2]]) == nil, "26 m: another spot")
    }

    @Test("recents: a repeat moves to the top with the new time and keeps its id; a new one enters; beyond 50 the oldest leave")
    func recents() throws {
        var state = PlacesState()
        var opened: [UUID: OpenedRecent] = [:]
        var ids: [UUID] = []
        for index in 0..<50 {
            let id = UUID()
            let point = Self.north(Double(index) * 100)
            state = try Self.record(state, point, opened: opened, at: Self.t0 + Double(index), id: id).0
            opened[id] = OpenedRecent(name: nil, coordinate: point)
            ids.append(id)
        }
        #expect(state.recents.count == 50 && state.recents.first?.recentId == ids.last)
        // Near the oldest (index 0): it moves to the top, nothing is added.
        var events: [PlacesEvent]
        (state, events) = try Self.record(state, Self.north(12), name: "Start", opened: opened, at: Self.t0 + 100)
        guard case .recentRevisited(let revisit) = events.first else { Issue.record("expected a revisit: \(events)"); return }
        #expect(revisit.recentId == ids[0] && revisit.at == Self.t0 + 100 && revisit.name == Self.sealed("name:Start"))
        #expect(state.recents.count == 50 && state.recents.first?.recentId == ids[0] && state.recents.first?.name == Self.sealed("name:Start"))
        // A new spot: the oldest now (index 1) leaves.
        let fresh = UUID()
        (state, events) = try Self.record(state, Self.north(100_000), opened: opened, at: Self.t0 + 200, id: fresh)
        guard case .recentRecorded(let recorded) = events.first else { Issue.record("expected a new recent: \(events)"); return }
        #expect(recorded.evicted == [ids[1]])
        #expect(state.recents.count == 50 && state.recents.map(\.recentId).prefix(2) == [fresh, ids[0]] && !state.recents.contains { $0.recentId == ids[1] })
        // A repeat never goes back in time.
        (state, _) = try Self.record(state, Self.north(100_000), opened: opened.merging([fresh: OpenedRecent(name: nil, coordinate: Self.north(100_000))]) { $1 },
                                     at: Self.t0 + 150)
        #expect(state.recents.first?.recentId == fresh && state.recents.first?.at == Self.t0 + 200)
        // Clear: empty; clearing again changes nothing.
        (state, events) = try Self.run(state, .clearRecents)
        #expect(state.recents.isEmpty && events.count == 1)
        #expect(try Self.run(state, .clearRecents).1.isEmpty)
    }

    @Test("erasure empties everything once; afterwards nothing can be added (account-erased)")
    func erasure() throws {
        var state = try Self.run(PlacesState(), .addFavourite(id: UUID(), name: Self.sealed("n"), place: Self.sealed("p"))).0
        state = try Self.record(state, Self.north(0), opened: [:], at: Self.t0).0
        var events: [PlacesEvent]
        (state, events) = try Self.run(state, .erase)
        #expect(events.count == 1 && state.favourites.isEmpty && state.recents.isEmpty && state.erased)
        #expect(try Self.run(state, .erase).1.isEmpty, "idempotent")
        #expect(throws: PlacesError.accountErased) { try Self.run(state, .addFavourite(id: UUID(), name: Self.sealed("n"), place: Self.sealed("p"))) }
        #expect(throws: PlacesError.accountErased) { try Self.record(state, Self.north(0), opened: [:], at: Self.t0) }
    }
}
