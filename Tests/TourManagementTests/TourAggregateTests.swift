import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: the tour aggregate (authoring and lifecycle)")
struct TourAggregateTests {
    static let guide = UUID.v4()
    static let stranger = UUID.v4()
    static let now = Date(timeIntervalSince1970: 1_795_341_600)

    static func details(themes: [TourTheme] = [.history], description: String = "Old town walk") -> TourDetails {
        TourDetails(title: "Krems old town", description: description, destinationId: 2_773_300, themes: themes, languages: ["de"],
                    price: Money(amountMinor: 0, currency: .eur), estimatedMinutes: 60, difficulty: .easy, mode: .walk)
    }

    static func stop(_ name: String, lat: Double, lng: Double, text: String = "A place") -> TourStop {
        TourStop(stopId: .v4(), name: name, description: text, location: LatLng(lat: lat, lng: lng), triggerRadiusMetres: 30, media: [])
    }

    static func withRepository(_ backend: TestBackend, _ body: @Sendable (AggregateRepository<TourAggregate, AnyEventStore>) async throws -> Void)
        async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        try await backend.withServiceStorage("tour-management", logger: logger) { storage in
            try await body(AggregateRepository<TourAggregate, AnyEventStore>(store: AnyEventStore(storage.store)))
        }
    }

    @Test("draft → stops → publish refuses with every missing part → complete → revision 1 → edit → revision 2", arguments: TestBackend.enabled)
    func lifecycle(backend: TestBackend) async throws {
        try await Self.withRepository(backend) { repository in
            let tour = UUID.v4()
            let stream = TourAggregate.streamID(tour)
            try await repository.execute(.draft(tourId: tour, guideId: Self.guide, details: Self.details(themes: []), at: Self.now), on: stream)
            let gate = Self.stop("Steiner Tor", lat: 48.4098, lng: 15.5976, text: "")
            try await repository.execute(.addStop(actor: Self.guide, stop: gate, position: nil, at: Self.now), on: stream)
            do {
                try await repository.execute(.publish(actor: Self.guide, at: Self.now), on: stream)
                Issue.record("an incomplete tour was published")
            } catch let TourError.incomplete(missing) {
                #expect(Set(missing.map(\.field)) == ["themes", "stops", "stops[0]"])
            }
            try await repository.execute(.changeDetails(actor: Self.guide, details: Self.details(), at: Self.now), on: stream)
            try await repository.execute(.attachMedia(actor: Self.guide, stopId: gate.stopId,
                                                      media: StopMedia(sha256: String(repeating: "0", count: 64), kind: "image",
                                                                       contentType: "image/png", size: 10), at: Self.now), on: stream)
            let church = Self.stop("Piaristenkirche", lat: 48.4106, lng: 15.6013)
            try await repository.execute(.addStop(actor: Self.guide, stop: church, position: 0, at: Self.now), on: stream)
            let first = try await repository.execute(.publish(actor: Self.guide, at: Self.now), on: stream)
            guard case .published(let published) = try #require(first.events.first) else { Issue.record("not published"); return }
            #expect(published.revision == 1)
            #expect(published.stops.map(\.name) == ["Piaristenkirche", "Steiner Tor"])
            #expect(published.lengthMetres > 250 && published.lengthMetres < 350)
            // Publishing again without changes does nothing.
            #expect(try await repository.execute(.publish(actor: Self.guide, at: Self.now), on: stream).events.isEmpty)

            // Editing a published tour changes the working copy only; publishing makes revision 2.
            try await repository.execute(.reorderStops(actor: Self.guide, stopIds: [gate.stopId, church.stopId], at: Self.now), on: stream)
            let edited = try await repository.load(stream).state
            #expect(edited.status == .published && edited.hasUnpublishedChanges)
            #expect(edited.publishedStops.map(\.name) == ["Piaristenkirche", "Steiner Tor"])
            let second = try await repository.execute(.publish(actor: Self.guide, at: Self.now), on: stream)
            #expect(second.state.revision == 2 && !second.state.hasUnpublishedChanges)
            try await repository.execute(.unpublish(actor: Self.guide, at: Self.now), on: stream)
            await #expect(throws: TourError.invalidState("a tour that was published cannot be deleted; unpublish it instead")) {
                try await repository.execute(.deleteDraft(actor: Self.guide, at: Self.now), on: stream)
            }
        }
    }

    @Test("only the owner changes a tour; stops must exist; a reorder names every stop once")
    func refusals() async throws {
        try await Self.withRepository(.sqlite) { repository in
            let tour = UUID.v4()
            let stream = TourAggregate.streamID(tour)
            try await repository.execute(.draft(tourId: tour, guideId: Self.guide, details: Self.details(), at: Self.now), on: stream)
            let a = Self.stop("A", lat: 48.0, lng: 15.0), b = Self.stop("B", lat: 48.01, lng: 15.0)
            try await repository.execute(.addStop(actor: Self.guide, stop: a, position: nil, at: Self.now), on: stream)
            try await repository.execute(.addStop(actor: Self.guide, stop: b, position: nil, at: Self.now), on: stream)
            await #expect(throws: TourError.notOwner) {
                try await repository.execute(.changeDetails(actor: Self.stranger, details: Self.details(description: "mine"), at: Self.now), on: stream)
            }
            await #expect(throws: TourError.unknownStop(Self.guide)) {
                try await repository.execute(.removeStop(actor: Self.guide, stopId: Self.guide, at: Self.now), on: stream)
            }
            await #expect(throws: TourError.reorderMismatch) {
                try await repository.execute(.reorderStops(actor: Self.guide, stopIds: [a.stopId, a.stopId], at: Self.now), on: stream)
            }
            await #expect(throws: TourError.notFound) {
                try await repository.execute(.publish(actor: Self.guide, at: Self.now), on: TourAggregate.streamID(.v4()))
            }
            await #expect(throws: TourError.alreadyExists) {
                try await repository.execute(.draft(tourId: tour, guideId: Self.guide, details: Self.details(), at: Self.now), on: stream)
            }
        }
    }

    @Test("a draft untouched for 30 days expires once; a published tour never does; a deleted draft is gone")
    func expiryAndDeletion() async throws {
        try await Self.withRepository(.sqlite) { repository in
            let draft = UUID.v4()
            try await repository.execute(.draft(tourId: draft, guideId: Self.guide, details: Self.details(), at: Self.now),
                                         on: TourAggregate.streamID(draft))
            let cutoff = Self.now.addingTimeInterval(-TourAggregate.draftLifetime)
            #expect(try await repository.execute(.expireDraft(olderThan: cutoff, at: Self.now), on: TourAggregate.streamID(draft)).events.isEmpty)
            let later = Self.now.addingTimeInterval(TourAggregate.draftLifetime + 60)
            let expired = try await repository.execute(.expireDraft(olderThan: later.addingTimeInterval(-TourAggregate.draftLifetime), at: later),
                                                       on: TourAggregate.streamID(draft))
            #expect(expired.state.status == .expired)
            await #expect(throws: TourError.notFound) {
                try await repository.execute(.changeDetails(actor: Self.guide, details: Self.details(description: "x"), at: later),
                                             on: TourAggregate.streamID(draft))
            }
            let other = UUID.v4()
            try await repository.execute(.draft(tourId: other, guideId: Self.guide, details: Self.details(), at: Self.now),
                                         on: TourAggregate.streamID(other))
            #expect(try await repository.execute(.deleteDraft(actor: Self.guide, at: Self.now), on: TourAggregate.streamID(other)).state.status == .deleted)
        }
    }

    @Test("two concurrent edits of one tour: one wins, the other gets a version conflict — never a lost update")
    func concurrentEdits() async throws {
        try await Self.withRepository(.sqlite) { repository in
            let tour = UUID.v4()
            let stream = TourAggregate.streamID(tour)
            try await repository.execute(.draft(tourId: tour, guideId: Self.guide, details: Self.details(), at: Self.now), on: stream)
            let loaded = try await repository.load(stream)
            // Both decided on the same version; the second append must fail.
            let events = try TourAggregate.decide(.changeDetails(actor: Self.guide, details: Self.details(description: "one"), at: Self.now), loaded.state)
            let other = try TourAggregate.decide(.changeDetails(actor: Self.guide, details: Self.details(description: "two"), at: Self.now), loaded.state)
            _ = try await repository.store.append(try events.map { try TourAggregate.payload(of: $0).newEvent() }, to: stream,
                                                  expectedVersion: .exact(loaded.version))
            await #expect(throws: EventStoreError.self) {
                _ = try await repository.store.append(try other.map { try TourAggregate.payload(of: $0).newEvent() }, to: stream,
                                                      expectedVersion: .exact(loaded.version))
            }
            #expect(try await repository.load(stream).state.details?.description == "one")
        }
    }
}
