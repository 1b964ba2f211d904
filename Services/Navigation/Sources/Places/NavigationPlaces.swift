import Contracts
import EventSourcing
import Foundation
import Geo
import ServiceKit

/// A favourite place as its traveller sees it (opened).
public struct Favourite: Sendable, Hashable {
    public var id: UUID
    public var name: String
    public var coordinate: Coordinate
    /// The tour-management destination it belongs to, if the traveller said so.
    public var destinationId: Int64?
    public var addedAt: Date
    public var updatedAt: Date
}

/// A recent location as its traveller sees it (opened).
public struct RecentPlace: Sendable, Hashable {
    public var id: UUID
    public var name: String?
    public var coordinate: Coordinate
    public var kind: RecentPlaceKind
    public var at: Date
}

/// A sealed name: JSON `{"name": …}`.
struct SealedName: Codable, Sendable, Hashable {
    var name: String
}

/// Places of the signed-in traveller (issue 21, point 7): favourites (name, coordinate, optional destination id) and
/// the last 50 recent locations, searched or navigated to, de-duplicated — commands on `places-<user id>`
/// (``PlacesAggregate``), lists from the places read model.
///
/// Names and coordinates are sealed with the traveller's key (``SubjectSeal``) in the log, in snapshots and in the read
/// model alike, and opened when read: destroying the key (``TravellerErasureWorker``) makes every copy unreadable at
/// once, and a copied database reveals nobody's home. A write returns once the read model shows it (read your writes).
public struct NavigationPlaces: Sendable {
    /// The longest name, in characters (after trimming).
    public static let nameLength = 80
    /// Snapshot every this many events: a long-lived traveller's stream loads from a snapshot and a short tail.
    public static let snapshotEvery = 50

    let repository: AggregateRepository<PlacesAggregate, AnyEventStore>
    /// The traveller's key: sealing, opening, erasing.
    public let seal: SubjectSeal
    let reads: any PlacesReadStore
    /// The places read model's runner (lists wait for it after a write).
    public let readModel: any ProjectionRunning
    public let now: @Sendable () -> Date

    public init(store: AnyEventStore, keys: any PersonalDataKeyStore, reads: any PlacesReadStore, readModel: any ProjectionRunning,
                now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store, snapshotEvery: Self.snapshotEvery)
        seal = SubjectSeal(keys: keys, whenErased: { _ in PlacesError.accountErased })
        self.reads = reads
        self.readModel = readModel
        self.now = now
    }

    // MARK: Favourites

    /// Adds a favourite with a new id. 422 `invalid-field` for a name that is not 1–80 characters once trimmed, 409
    /// `too-many-favourites` beyond 200, 403 `account-erased`.
    public func addFavourite(name: String, at coordinate: Coordinate, destinationId: Int64? = nil, for user: UUID,
                             metadata: EventMetadata = .init()) async throws -> Favourite {
        let name = try Self.requireName(name)
        let id = UUID.v7()
        let sealedName = try await seal.seal(SealedName(name: name), for: user)
        let place = try await seal.seal(SealedPlace(lat: coordinate.latitude, lng: coordinate.longitude, destinationId: destinationId), for: user)
        let outcome = try await execute(.addFavourite(id: id, name: sealedName, place: place), for: user, metadata: metadata)
        let entry = outcome.state.favourites[id]
        let at = entry?.addedAt ?? now()
        return Favourite(id: id, name: name, coordinate: coordinate, destinationId: destinationId, addedAt: at, updatedAt: entry?.updatedAt ?? at)
    }

    /// Renames the traveller's favourite `id`: 404 `unknown-place` when it is not theirs, 422 for a bad name.
    public func renameFavourite(_ id: UUID, to name: String, of user: UUID, metadata: EventMetadata = .init()) async throws -> Favourite {
        let name = try Self.requireName(name)
        let sealedName = try await seal.seal(SealedName(name: name), for: user)
        let outcome = try await execute(.renameFavourite(id: id, name: sealedName), for: user, metadata: metadata)
        guard let entry = outcome.state.favourites[id], let favourite = try await open(entry) else { throw PlacesError.unknownPlace }
        return favourite
    }

    /// Removes the traveller's favourite `id`: 404 `unknown-place` when it is not theirs.
    public func removeFavourite(_ id: UUID, of user: UUID, metadata: EventMetadata = .init()) async throws {
        _ = try await execute(.removeFavourite(id: id), for: user, metadata: metadata)
    }

    /// The traveller's favourites by name (case and accents folded), then id.
    public func favourites(of user: UUID) async throws -> [Favourite] {
        try await open(try await reads.favourites(of: user)).sorted { PlacesRules.byName(($0.name, $0.id), ($1.name, $1.id)) }
    }

    /// One favourite of the traveller, `nil` when it is not theirs (route cards and sessions look favourites up by id).
    public func favourite(_ id: UUID, of user: UUID) async throws -> Favourite? {
        guard let row = try await reads.favourite(id, of: user) else { return nil }
        return try await open([row]).first
    }

    // MARK: Recent locations

    /// Remembers that the traveller searched for or navigated to `location` at `at`: within 25 m of one of their recents
    /// (and not named differently) that recent moves to the top; otherwise it enters the last 50. What the rest of the
    /// service calls when a traveller navigates or searches: the name is trimmed, cut to 80 characters, and dropped when
    /// blank (the HTTP route refuses such names instead).
    @discardableResult
    public func remember(_ location: Coordinate, name: String?, kind: RecentPlaceKind, for user: UUID, at: Date,
                         metadata: EventMetadata = .init()) async throws -> RecentPlace {
        try await record(location, name: name, kind: kind, for: user, at: at, metadata: metadata).recent
    }

    /// ``remember(_:name:kind:for:at:metadata:)``, and whether the location entered the list (`false`: it repeated a recent).
    func record(_ location: Coordinate, name: String?, kind: RecentPlaceKind, for user: UUID, at: Date,
                metadata: EventMetadata) async throws -> (recent: RecentPlace, added: Bool) {
        let name = name.map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Self.nameLength)) }.flatMap { $0.isEmpty ? nil : $0 }
        let sealedName = try await name.asyncMap { try await seal.seal(SealedName(name: $0), for: user) }
        let place = try await seal.seal(SealedPlace(lat: location.latitude, lng: location.longitude), for: user)
        let id = UUID.v7()
        let recent = try await translatingConflicts {
            try await repository.execute(on: PlacesAggregate.streamID(user), metadata: metadata, retries: 3) { loaded in
                let use = RecentUse(id: id, name: name, coordinate: location, sealedName: sealedName, sealedPlace: place, kind: kind,
                                    opened: try await openRecents(loaded.state.recents))
                let events = try PlacesAggregate.decide(PlacesCommand(user: user, at: at, .recordRecent(use)), loaded.state)
                let state = events.reduce(loaded.state, PlacesAggregate.apply)
                let (touched, added): (UUID?, Bool) = switch events.first {
                case .recentRecorded(let e): (e.recentId, true)
                case .recentRevisited(let e): (e.recentId, false)
                default: (nil, false)
                }
                return (events, (state.recents.first { $0.recentId == touched }, added))
            }
        }
        await settle(try await repository.store.headPosition())
        guard let entry = recent.0, let opened = try await openRecents([entry])[entry.recentId] else { throw PlacesError.accountErased }
        return (RecentPlace(id: entry.recentId, name: opened.name, coordinate: opened.coordinate, kind: entry.kind, at: entry.at), recent.1)
    }

    /// The traveller's newest `limit` recents (1–50), newest first.
    public func recents(of user: UUID, limit: Int = PlacesAggregate.recentLimit) async throws -> [RecentPlace] {
        let rows = try await reads.recents(of: user, limit: min(max(limit, 1), PlacesAggregate.recentLimit))
        let names = try await seal.open(SealedName.self, rows.compactMap(\.name))
        let places = try await seal.open(SealedPlace.self, rows.map(\.place))
        var nameIndex = 0
        var recents: [RecentPlace] = []
        for (row, place) in zip(rows, places) {
            var name: SealedName?
            if row.name != nil {
                name = names[nameIndex]
                nameIndex += 1
                guard name != nil else { continue }
            }
            guard let place, let coordinate = try? Coordinate(latitude: place.lat, longitude: place.lng) else { continue }
            recents.append(RecentPlace(id: row.recentId, name: name?.name, coordinate: coordinate, kind: row.kind, at: row.at))
        }
        return recents
    }

    /// Clears the traveller's recents.
    public func clearRecents(of user: UUID, metadata: EventMetadata = .init()) async throws {
        _ = try await execute(.clearRecents, for: user, metadata: metadata)
    }

    // MARK: Erasure

    /// The places step of a traveller's erasure (their key is already destroyed): `PlacesErased` empties both lists and
    /// the read model drops their rows. Idempotent.
    public func erase(_ user: UUID) async throws {
        _ = try await execute(.erase, for: user, metadata: EventMetadata(actorID: "system:erasure"))
    }

    /// The step ``TravellerErasureWorker`` runs for places.
    public var erasureStep: TravellerErasureStep {
        TravellerErasureStep("places", waitingFor: [readModel]) { try await erase($0) }
    }

    // MARK: Helpers

    /// A name as stored: trimmed, 1–80 characters; 422 `invalid-field` on `name` otherwise.
    static func requireName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        var validator = Validator()
        validator.length(trimmed, field: "name", min: 1, max: nameLength)
        try validator.check()
        return trimmed
    }

    private func execute(_ action: PlacesCommand.Action, for user: UUID, metadata: EventMetadata) async throws
        -> AggregateRepository<PlacesAggregate, AnyEventStore>.Outcome {
        let outcome = try await translatingConflicts {
            // Every command stays valid against newer state (decide checks it again): retry a concurrent change.
            try await repository.execute(PlacesCommand(user: user, at: now(), action), on: PlacesAggregate.streamID(user), metadata: metadata,
                                         retries: 3)
        }
        await settle(outcome.append?.lastPosition)
        return outcome
    }

    private func translatingConflicts<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw PlacesError.concurrentChange
        }
    }

    /// Waits (at most 5 s) until the read model includes `position`, so the writer's next list shows the change.
    private func settle(_ position: Int64?) async {
        guard let position else { return }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while readModel.status.position < position, readModel.status.isHealthy, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Recents opened for the de-duplication; an entry that does not open (erased) is left out.
    private func openRecents(_ entries: [PlacesState.RecentEntry]) async throws -> [UUID: OpenedRecent] {
        let names = try await seal.open(SealedName.self, entries.compactMap(\.name))
        let places = try await seal.open(SealedPlace.self, entries.map(\.place))
        var nameIndex = 0
        var opened: [UUID: OpenedRecent] = [:]
        for (entry, place) in zip(entries, places) {
            var name: String?
            if entry.name != nil {
                name = names[nameIndex]?.name
                nameIndex += 1
            }
            guard let place, let coordinate = try? Coordinate(latitude: place.lat, longitude: place.lng) else { continue }
            opened[entry.recentId] = OpenedRecent(name: name, coordinate: coordinate)
        }
        return opened
    }

    private func open(_ entry: PlacesState.FavouriteEntry) async throws -> Favourite? {
        try await open([FavouritePlaceRow(userId: UUID(), placeId: entry.placeId, name: entry.name, place: entry.place, addedAt: entry.addedAt,
                                          updatedAt: entry.updatedAt)]).first
    }

    /// Favourites opened; a row that does not open (its traveller was erased) is left out.
    private func open(_ rows: [FavouritePlaceRow]) async throws -> [Favourite] {
        let names = try await seal.open(SealedName.self, rows.map(\.name))
        let places = try await seal.open(SealedPlace.self, rows.map(\.place))
        return zip(rows, zip(names, places)).compactMap { row, opened in
            guard let name = opened.0, let place = opened.1,
                  let coordinate = try? Coordinate(latitude: place.lat, longitude: place.lng) else { return nil }
            return Favourite(id: row.placeId, name: name.name, coordinate: coordinate, destinationId: place.destinationId, addedAt: row.addedAt,
                             updatedAt: row.updatedAt)
        }
    }
}

fileprivate extension Optional {
    /// The wrapped value through an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
