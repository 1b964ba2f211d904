import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: media a tour drops become garbage 24 h later (tour_media read model)")
struct MediaReferencesTests {
    @Test("removing the last stop that uses a medium releases it; it goes 24 h later; a published revision keeps its media; rebuild = live",
          arguments: TestBackend.enabled)
    func droppedMedia(backend: TestBackend) async throws {
        try await backend.withServiceStorage("tour-management", logger: MediaTestSupport.quiet) { storage in
            let media = try MediaStore.open(try await TourManagementStores.open(storage))
            let store = AnyEventStore(storage.store)
            let projection = storage.projection(sqlite: SQLiteTourMediaProjection(), postgres: PostgresTourMediaProjection())
            let t0 = MediaTestSupport.t0
            let a = try await media.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 11)), uploadedBy: "g", now: t0)
            let b = try await media.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 12)), uploadedBy: "g", now: t0)
            func medium(_ object: MediaObject) -> StopMedia {
                StopMedia(sha256: object.sha256, kind: object.kind.rawValue, contentType: object.contentType, size: Int64(object.size))
            }
            let tour = UUID.v4(), guide = UUID.v4()
            let stream = TourAggregate.streamID(tour)
            func append(_ event: some EventPayload) async throws {
                _ = try await store.append(try event.newEvent(), to: stream, expectedVersion: .any)
            }
            let details = TourAggregateTests.details()
            var stopA = TourAggregateTests.stop("A", lat: 48.41, lng: 15.60)
            stopA.media = [medium(a)]
            var stopB = TourAggregateTests.stop("B", lat: 48.42, lng: 15.61)
            stopB.media = [medium(b)]
            try await append(TourDrafted(tourId: tour, guideId: guide, details: details, draftedAt: t0))
            try await append(StopAdded(tourId: tour, stop: stopA, position: 0, addedAt: t0))
            try await append(StopAdded(tourId: tour, stop: stopB, position: 1, addedAt: t0))
            try await media.catalog.markReferenced([a.sha256, b.sha256], at: t0)
            try await append(TourPublished(tourId: tour, guideId: guide, revision: 1, details: details, stops: [stopA, stopB], lengthMetres: 1_300,
                                           publishedAt: t0))
            try await projection.catchUp()

            // Both in use: nothing goes, however old.
            #expect(try await media.collectGarbage(now: t0.addingTimeInterval(30 * 3600)).isEmpty)

            // B leaves the working copy, but revision 1 (which owners keep) still shows it; A leaves the working copy of a
            // second tour only — here: A stays in revision 1 too. Nothing is released.
            try await append(StopRemoved(tourId: tour, stopId: stopB.stopId, removedAt: t0.addingTimeInterval(31 * 3600)))
            try await projection.catchUp()
            #expect(try await media.collectGarbage(now: t0.addingTimeInterval(32 * 3600)).isEmpty)

            // A draft that never published drops its medium: released now, removed 24 h later.
            let draft = UUID.v4()
            let c = try await media.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 13)), uploadedBy: "g", now: t0)
            var stopC = TourAggregateTests.stop("C", lat: 48.43, lng: 15.62)
            try await store.append(try TourDrafted(tourId: draft, guideId: guide, details: details, draftedAt: t0).newEvent(),
                                   to: TourAggregate.streamID(draft), expectedVersion: .any)
            try await store.append(try StopAdded(tourId: draft, stop: stopC, position: 0, addedAt: t0).newEvent(),
                                   to: TourAggregate.streamID(draft), expectedVersion: .any)
            stopC.media = [medium(c)]
            try await store.append(try MediaAttached(tourId: draft, stopId: stopC.stopId, media: medium(c), attachedAt: t0).newEvent(),
                                   to: TourAggregate.streamID(draft), expectedVersion: .any)
            try await media.catalog.markReferenced([c.sha256], at: t0)
            try await projection.catchUp()
            #expect(try await media.collectGarbage(now: t0.addingTimeInterval(33 * 3600)).isEmpty)
            let dropped = t0.addingTimeInterval(34 * 3600)
            try await store.append(try TourDeleted(tourId: draft, deletedAt: dropped).newEvent(), to: TourAggregate.streamID(draft),
                                   expectedVersion: .any)
            try await projection.catchUp()
            #expect(try await media.collectGarbage(now: dropped).isEmpty, "released, not removed")
            #expect(try await media.catalog.entry(sha256: c.sha256)?.referencedAt == nil)
            #expect(try await media.collectGarbage(now: dropped.addingTimeInterval(23 * 3600)).isEmpty, "within 24 h of the drop")
            #expect(try await media.collectGarbage(now: dropped.addingTimeInterval(25 * 3600)).map(\.sha256) == [c.sha256])
            for kept in [a, b] { #expect(try await media.object(sha256: kept.sha256) != nil) }

            // A medium attached moments ago (the read model has not seen it yet) is never released.
            let d = try await media.store(ChunkedBody(MediaSamples.largePNG(padding: 10, seed: 14)), uploadedBy: "g", now: t0)
            let late = t0.addingTimeInterval(60 * 3600)
            try await media.catalog.markReferenced([d.sha256], at: late)
            #expect(try await media.collectGarbage(now: late.addingTimeInterval(60)).isEmpty)

            try await projection.rebuild()
            #expect(try await media.collectGarbage(now: late.addingTimeInterval(120)).isEmpty, "the rebuilt model still names A and B")
            for kept in [a, b] { #expect(try await media.object(sha256: kept.sha256) != nil) }
        }
    }
}
