import Contracts
import EventSourcing
import Foundation
import Geo
import ServiceKit

/// A traveller's places folded from `places-<user id>`: their favourites by id and their recent locations, newest first.
/// Names and places stay sealed here (the state is snapshotted); ``NavigationPlaces`` opens what a command compares.
public struct PlacesState: Codable, Sendable, Hashable {
    /// One favourite as the stream holds it.
    public struct FavouriteEntry: Codable, Sendable, Hashable {
        public var placeId: UUID
        public var name: SealedPersonalData
        public var place: SealedPersonalData
        public var addedAt: Date
        public var updatedAt: Date
    }

    /// One recent location as the stream holds it.
    public struct RecentEntry: Codable, Sendable, Hashable {
        public var recentId: UUID
        public var name: SealedPersonalData?
        public var place: SealedPersonalData
        public var kind: RecentPlaceKind
        public var at: Date
    }

    public var favourites: [UUID: FavouriteEntry] = [:]
    /// Newest first (ties: the greater id first), at most ``PlacesAggregate/recentLimit``.
    public var recents: [RecentEntry] = []
    /// The traveller was erased: nothing is added any more.
    public var erased = false

    public init() {}
}

/// A recent location opened for comparison: what the de-duplication rule reads.
public struct OpenedRecent: Sendable, Hashable {
    public var name: String?
    public var coordinate: Coordinate

    public init(name: String?, coordinate: Coordinate) {
        (self.name, self.coordinate) = (name, coordinate)
    }
}

/// One use of a location (searched or navigated to), sealed for the stream and opened for the rule.
public struct RecentUse: Sendable {
    /// The id the recent gets when it is new.
    public var id: UUID
    public var name: String?
    public var coordinate: Coordinate
    public var sealedName: SealedPersonalData?
    public var sealedPlace: SealedPersonalData
    public var kind: RecentPlaceKind
    /// The traveller's recents as they open now, by id; a recent missing here is never matched.
    public var opened: [UUID: OpenedRecent]
}

/// What a traveller asks of their places.
public struct PlacesCommand: Sendable {
    public enum Action: Sendable {
        case addFavourite(id: UUID, name: SealedPersonalData, place: SealedPersonalData)
        case renameFavourite(id: UUID, name: SealedPersonalData)
        case removeFavourite(id: UUID)
        case recordRecent(RecentUse)
        case clearRecents
        case erase
    }

    public var user: UUID
    public var at: Date
    public var action: Action

    public init(user: UUID, at: Date, _ action: Action) {
        (self.user, self.at, self.action) = (user, at, action)
    }
}

public enum PlacesEvent: Sendable, Hashable {
    case favouriteAdded(FavouritePlaceAdded)
    case favouriteRenamed(FavouritePlaceRenamed)
    case favouriteRemoved(FavouritePlaceRemoved)
    case recentRecorded(RecentPlaceRecorded)
    case recentRevisited(RecentPlaceRevisited)
    case recentsCleared(RecentPlacesCleared)
    case erased(PlacesErased)
}

/// Why a places command was refused; renders itself as problem+json.
public enum PlacesError: Error, Sendable, Hashable, ProblemConvertible {
    /// No such favourite of this traveller (also another traveller's).
    case unknownPlace
    /// The traveller keeps ``PlacesAggregate/favouriteLimit`` favourites already.
    case tooManyFavourites
    /// The traveller's account was erased.
    case accountErased
    /// Another change of the same places won every retry.
    case concurrentChange

    public var problem: Problem {
        switch self {
        case .unknownPlace: .notFound("no such favourite place", code: "unknown-place")
        case .tooManyFavourites:
            .conflict("A traveller keeps at most \(PlacesAggregate.favouriteLimit) favourite places; remove one first.", code: "too-many-favourites")
        case .accountErased: .forbidden("The account was erased.", code: "account-erased")
        case .concurrentChange: .conflict("The places changed at the same time; retry.", code: "version-conflict")
        }
    }
}

/// The rules about places that need no keys: when a use is the same spot as a recent, and in which order lists go.
public enum PlacesRules {
    /// How near a use must be to a recent to be the same spot, in metres.
    public static let sameSpotMetres = 25.0

    /// The recent a use of `coordinate` (named `name`) is a repeat of: within ``sameSpotMetres`` and not named
    /// differently (two named places next door stay two); the same name wins, then the nearest. `nil`: a new recent.
    public static func sameSpot(name: String?, coordinate: Coordinate, among recents: [(UUID, OpenedRecent)]) -> UUID? {
        let candidates = recents.compactMap { id, recent -> (id: UUID, sameName: Bool, distance: Double)? in
            let distance = coordinate.distance(to: recent.coordinate)
            guard distance <= sameSpotMetres else { return nil }
            switch (name.map(folded), recent.name.map(folded)) {
            case let (new?, old?) where new != old: return nil
            case (_?, _?): return (id, true, distance)
            default: return (id, false, distance)
            }
        }
        return candidates.min { ($0.sameName ? 0 : 1, $0.distance) < ($1.sameName ? 0 : 1, $1.distance) }?.id
    }

    /// A name as it is compared: trimmed, case and diacritics folded.
    public static func folded(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Recents' order: newest first, ties by the greater id (as the read model's `ORDER BY at DESC, id DESC`).
    public static func newerFirst(_ a: (at: Date, id: UUID), _ b: (at: Date, id: UUID)) -> Bool {
        let (ak, bk) = (a.at.microsecondsSince1970, b.at.microsecondsSince1970)
        return ak != bk ? ak > bk : a.id.uuidString.lowercased() > b.id.uuidString.lowercased()
    }

    /// Favourites' order: by name (case and diacritics folded, then as written), then id.
    public static func byName(_ a: (name: String, id: UUID), _ b: (name: String, id: UUID)) -> Bool {
        let (af, bf) = (folded(a.name), folded(b.name))
        if af != bf { return af < bf }
        if a.name != b.name { return a.name < b.name }
        return a.id.uuidString.lowercased() < b.id.uuidString.lowercased()
    }
}

/// One stream per traveller (`places-<user id>`): favourites (at most ``favouriteLimit``) and the last ``recentLimit``
/// recent locations, de-duplicated by ``PlacesRules/sameSpot(name:coordinate:among:)``.
public enum PlacesAggregate: Aggregate {
    public typealias State = PlacesState
    public typealias Event = PlacesEvent
    public typealias Command = PlacesCommand

    public static let favouriteLimit = 200
    public static let recentLimit = 50
    public static var initialState: PlacesState { PlacesState() }

    public static let eventTypes = EventTypeMap<PlacesEvent>()
        .registering(FavouritePlaceAdded.self, PlacesEvent.favouriteAdded)
        .registering(FavouritePlaceRenamed.self, PlacesEvent.favouriteRenamed)
        .registering(FavouritePlaceRemoved.self, PlacesEvent.favouriteRemoved)
        .registering(RecentPlaceRecorded.self, PlacesEvent.recentRecorded)
        .registering(RecentPlaceRevisited.self, PlacesEvent.recentRevisited)
        .registering(RecentPlacesCleared.self, PlacesEvent.recentsCleared)
        .registering(PlacesErased.self, PlacesEvent.erased)

    public static func streamID(_ user: UUID) -> String { "places-\(user.uuidString.lowercased())" }

    public static func payload(of event: PlacesEvent) -> any EventPayload {
        switch event {
        case .favouriteAdded(let e): e
        case .favouriteRenamed(let e): e
        case .favouriteRemoved(let e): e
        case .recentRecorded(let e): e
        case .recentRevisited(let e): e
        case .recentsCleared(let e): e
        case .erased(let e): e
        }
    }

    public static func apply(_ state: PlacesState, _ event: PlacesEvent) -> PlacesState {
        var s = state
        switch event {
        case .favouriteAdded(let e):
            s.favourites[e.placeId] = .init(placeId: e.placeId, name: e.name, place: e.place, addedAt: e.addedAt, updatedAt: e.addedAt)
        case .favouriteRenamed(let e):
            s.favourites[e.placeId]?.name = e.name
            s.favourites[e.placeId]?.updatedAt = e.renamedAt
        case .favouriteRemoved(let e):
            s.favourites[e.placeId] = nil
        case .recentRecorded(let e):
            s.recents.append(.init(recentId: e.recentId, name: e.name, place: e.place, kind: e.kind, at: e.at))
            s.recents.removeAll { e.evicted.contains($0.recentId) }
        case .recentRevisited(let e):
            guard let index = s.recents.firstIndex(where: { $0.recentId == e.recentId }) else { break }
            s.recents[index].kind = e.kind
            s.recents[index].at = e.at
            if let name = e.name { s.recents[index].name = name }
        case .recentsCleared:
            s.recents = []
        case .erased:
            s = PlacesState()
            s.erased = true
        }
        s.recents.sort { PlacesRules.newerFirst(($0.at, $0.recentId), ($1.at, $1.recentId)) }
        return s
    }

    public static func decide(_ command: PlacesCommand, _ s: PlacesState) throws -> [PlacesEvent] {
        let (user, at) = (command.user, command.at)
        if s.erased {
            if case .erase = command.action { return [] }
            throw PlacesError.accountErased
        }
        switch command.action {
        case let .addFavourite(id, name, place):
            guard s.favourites[id] == nil else { return [] }
            guard s.favourites.count < favouriteLimit else { throw PlacesError.tooManyFavourites }
            return [.favouriteAdded(FavouritePlaceAdded(userId: user, placeId: id, name: name, place: place, addedAt: at))]
        case let .renameFavourite(id, name):
            guard s.favourites[id] != nil else { throw PlacesError.unknownPlace }
            return [.favouriteRenamed(FavouritePlaceRenamed(userId: user, placeId: id, name: name, renamedAt: at))]
        case let .removeFavourite(id):
            guard s.favourites[id] != nil else { throw PlacesError.unknownPlace }
            return [.favouriteRemoved(FavouritePlaceRemoved(userId: user, placeId: id, removedAt: at))]
        case .recordRecent(let use):
            return [record(use, user: user, at: at, s)]
        case .clearRecents:
            return s.recents.isEmpty ? [] : [.recentsCleared(RecentPlacesCleared(userId: user, clearedAt: at))]
        case .erase:
            return [.erased(PlacesErased(userId: user, erasedAt: at))]
        }
    }

    /// A use of a location: a repeat of a recent moves it to the top (never back in time); a new one enters and
    /// pushes the oldest beyond ``recentLimit`` out.
    static func record(_ use: RecentUse, user: UUID, at: Date, _ s: PlacesState) -> PlacesEvent {
        let opened = s.recents.compactMap { entry in use.opened[entry.recentId].map { (entry.recentId, $0) } }
        if let same = PlacesRules.sameSpot(name: use.name, coordinate: use.coordinate, among: opened),
           let existing = s.recents.first(where: { $0.recentId == same }) {
            return .recentRevisited(RecentPlaceRevisited(userId: user, recentId: same, name: use.sealedName, kind: use.kind,
                                                         at: max(existing.at, at)))
        }
        let ordered = (s.recents.map { ($0.at, $0.recentId) } + [(at, use.id)]).sorted { PlacesRules.newerFirst($0, $1) }
        return .recentRecorded(RecentPlaceRecorded(userId: user, recentId: use.id, name: use.sealedName, place: use.sealedPlace, kind: use.kind,
                                                   at: at, evicted: ordered.dropFirst(recentLimit).map(\.1)))
    }
}
