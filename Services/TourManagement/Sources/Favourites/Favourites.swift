import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import ServiceKit

/// A traveller's favourite tours folded from `favourites-<userId>`: tour → when it was favourited.
public struct FavouritesState: Codable, Sendable, Hashable {
    public var tours: [UUID: Date] = [:]

    public init() {}
}

public enum FavouritesEvent: Sendable {
    case favourited(TourFavourited)
    case unfavourited(TourUnfavourited)
}

public enum FavouritesCommand: Sendable {
    case add(tourId: UUID, userId: UUID, at: Date)
    case remove(tourId: UUID, userId: UUID, at: Date)
}

/// One stream per traveller. Adding a favourite twice or removing an absent one changes nothing (PUT and DELETE are
/// idempotent); at most ``limit`` favourites.
public enum FavouritesAggregate: Aggregate {
    public typealias State = FavouritesState
    public typealias Event = FavouritesEvent
    public typealias Command = FavouritesCommand

    public static let limit = 500
    public static var initialState: FavouritesState { FavouritesState() }

    public static let eventTypes = EventTypeMap<FavouritesEvent>()
        .registering(TourFavourited.self, FavouritesEvent.favourited)
        .registering(TourUnfavourited.self, FavouritesEvent.unfavourited)

    public static func streamID(_ userId: UUID) -> String { "favourites-\(userId.uuidString.lowercased())" }

    public static func payload(of event: FavouritesEvent) -> any EventPayload {
        switch event {
        case .favourited(let e): e
        case .unfavourited(let e): e
        }
    }

    public static func apply(_ state: FavouritesState, _ event: FavouritesEvent) -> FavouritesState {
        var s = state
        switch event {
        case .favourited(let e): s.tours[e.tourId] = e.favouritedAt
        case .unfavourited(let e): s.tours[e.tourId] = nil
        }
        return s
    }

    public static func decide(_ command: FavouritesCommand, _ s: FavouritesState) throws -> [FavouritesEvent] {
        switch command {
        case let .add(tourId, userId, at):
            guard s.tours[tourId] == nil else { return [] }
            guard s.tours.count < limit else {
                throw Problem.conflict("A traveller keeps at most \(limit) favourites; remove one first.", code: "too-many-favourites")
            }
            return [.favourited(TourFavourited(tourId: tourId, userId: userId, favouritedAt: at))]
        case let .remove(tourId, userId, at):
            guard s.tours[tourId] != nil else { return [] }
            return [.unfavourited(TourUnfavourited(tourId: tourId, userId: userId, unfavouritedAt: at))]
        }
    }
}

/// One favourite: the tour's published revision when it is listed, `nil` when it is not (unpublished since).
public struct Favourite: Sendable, Hashable {
    public var tourId: UUID
    public var favouritedAt: Date
    public var tour: PublishedTour?
}

/// One page of favourites, most recent first.
public struct FavouritesPage: Sendable, Hashable {
    public var favourites: [Favourite]
    public var nextCursor: PageCursor?
}

/// Favourites: commands on the traveller's stream, and the list folded from that same stream (a snapshot every
/// ``snapshotEvery`` events keeps a load to one snapshot and a short tail), so a list shows a change at once. Tour
/// summaries come from the discovery read model in one query per page.
public struct Favourites: Sendable {
    public static let snapshotEvery = 50

    let repository: AggregateRepository<FavouritesAggregate, AnyEventStore>
    let catalog: TourCatalog
    public let now: @Sendable () -> Date

    public init(store: AnyEventStore, catalog: TourCatalog, now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store, snapshotEvery: Self.snapshotEvery)
        self.catalog = catalog
        self.now = now
    }

    /// Marks a listed tour as a favourite (no change when it already is). 404 `unknown-tour` for a tour that is not
    /// listed, 409 `too-many-favourites`. Returns when it was favourited, and whether this call added it.
    @discardableResult
    public func add(tourId: UUID, user: UUID, metadata: EventMetadata = .init()) async throws -> (favouritedAt: Date, added: Bool) {
        guard try await catalog.tour(tourId) != nil else { throw Problem.notFound("no such published tour", code: "unknown-tour") }
        let at = now()
        let outcome = try await execute(.add(tourId: tourId, userId: user, at: at), user: user, metadata: metadata)
        return (outcome.state.tours[tourId] ?? at, !outcome.events.isEmpty)
    }

    /// Removes a favourite (no change when it is not one).
    public func remove(tourId: UUID, user: UUID, metadata: EventMetadata = .init()) async throws {
        _ = try await execute(.remove(tourId: tourId, userId: user, at: now()), user: user, metadata: metadata)
    }

    /// The user's favourites, most recent first (ties by tour id), after `cursor`.
    public func list(user: UUID, cursor: PageCursor?, limit: Int) async throws -> FavouritesPage {
        let state = try await repository.load(FavouritesAggregate.streamID(user)).state
        let ordered = state.tours.map { (tourId: $0.key, at: $0.value) }
            .sorted { ($0.at, $1.tourId.uuidString.lowercased()) > ($1.at, $0.tourId.uuidString.lowercased()) }
        let remaining = ordered.drop {
            guard let cursor else { return false }
            let key = $0.at.microsecondsSince1970
            return key > cursor.key || (key == cursor.key && $0.tourId.uuidString.lowercased() <= cursor.id.uuidString.lowercased())
        }
        let page = Array(remaining.prefix(limit))
        let tours = try await catalog.listedTours(page.map(\.tourId))
        let next = remaining.count > limit ? page.last.map { PageCursor(key: $0.at.microsecondsSince1970, id: $0.tourId) } : nil
        return FavouritesPage(favourites: page.map { Favourite(tourId: $0.tourId, favouritedAt: $0.at, tour: tours[$0.tourId]) },
                              nextCursor: next)
    }

    private func execute(_ command: FavouritesCommand, user: UUID, metadata: EventMetadata) async throws
        -> AggregateRepository<FavouritesAggregate, AnyEventStore>.Outcome {
        do {
            // Both commands stay valid against newer state: retry a concurrent change of the same list.
            return try await repository.execute(command, on: FavouritesAggregate.streamID(user), metadata: metadata, retries: 3)
        } catch EventStoreError.wrongExpectedVersion {
            throw Problem.conflict("The favourites changed at the same time; retry.", code: "version-conflict")
        }
    }
}
