import Contracts
import EventSourcing
import Foundation
import Geo
import Logging
import Messaging
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: the guide_tours read model on both backends")
struct GuideToursProjectionTests {
    @Test("drafts, publications, edits after publishing, unpublishing and deletion fold into rows; a rebuild equals the live model",
          arguments: TestBackend.enabled)
    func foldAndRebuild(backend: TestBackend) async throws {
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            return logger
        }()
        try await backend.withServiceStorage("tour-management", logger: logger) { storage in
            let store = AnyEventStore(storage.store)
            let repository = AggregateRepository<TourAggregate, AnyEventStore>(store: store)
            let guide = UUID.v4(), other = UUID.v4()
            let now = Date(timeIntervalSince1970: 1_795_341_600)
            let details = TourAggregateTests.details()
            func stop(_ name: String, _ lat: Double) -> TourStop { TourAggregateTests.stop(name, lat: lat, lng: 15.6) }
            let published = UUID.v4(), draft = UUID.v4(), deleted = UUID.v4(), foreign = UUID.v4()
            for (tour, owner) in [(published, guide), (draft, guide), (deleted, guide), (foreign, other)] {
                try await repository.execute(.draft(tourId: tour, guideId: owner, details: details, at: now), on: TourAggregate.streamID(tour))
            }
            for name in ["A", "B"] {
                try await repository.execute(.addStop(actor: guide, stop: stop(name, 48.4 + Double(name.count) / 100), position: nil, at: now),
                                             on: TourAggregate.streamID(published))
            }
            try await repository.execute(.publish(actor: guide, at: now.addingTimeInterval(60)), on: TourAggregate.streamID(published))
            try await repository.execute(.addStop(actor: guide, stop: stop("C", 48.5), position: nil, at: now.addingTimeInterval(120)),
                                         on: TourAggregate.streamID(published))
            try await repository.execute(.deleteDraft(actor: guide, at: now), on: TourAggregate.streamID(deleted))

            let live: any ProjectionRunning = if let sqlite = storage.sqlite {
                ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: sqlite, projection: SQLiteGuideToursProjection()))
            } else {
                ProjectionRunner(store: store, target: PostgresProjectionTarget(database: storage.postgres!, projection: PostgresGuideToursProjection()))
            }
            try await live.catchUp()
            let reads = storage.guideTourReads
            let mine = try await reads.tours(ofGuide: guide)
            #expect(Set(mine.map(\.tourId)) == [published, draft])
            let row = try #require(mine.first { $0.tourId == published })
            #expect(row.status == .published && row.revision == 1 && row.changedSincePublish)
            #expect(row.lastChangedAt == now.addingTimeInterval(120))
            #expect(try await reads.drafts(untouchedSince: now.addingTimeInterval(1)).map(\.tourId).sorted { $0.uuidString < $1.uuidString }
                    == [draft, foreign].sorted { $0.uuidString < $1.uuidString })
            #expect(try await reads.publishedCountsByDestination() == [details.destinationId: 1])

            // The maintenance job: published counts reach the destination index; drafts untouched for 30 days expire.
            let index = DestinationIndex(cities: [City(id: details.destinationId, name: "Krems an der Donau", country: "AT",
                                                       coordinate: try Coordinate(latitude: 48.41, longitude: 15.61))])
            let media = try MediaStore.open(try await TourManagementStores.open(storage))
            let later = now.addingTimeInterval(TourAggregate.draftLifetime + 3_600)
            let authoring = TourAuthoring(store: store, destinations: index, media: media, now: { later })
            let maintenance = TourMaintenance(authoring: authoring, reads: reads, index: index, logger: logger)
            try await maintenance.refreshCounts()
            #expect(index.publishedTours(cityID: details.destinationId) == 1)
            #expect(try await maintenance.expireDrafts() == 2)
            try await live.catchUp()
            #expect(try await reads.tours(ofGuide: guide).map(\.tourId) == [published])
            #expect(try await maintenance.expireDrafts() == 0, "expiry happens once")

            let before = try await reads.tours(ofGuide: guide) + reads.tours(ofGuide: other)
            try await live.rebuild()
            let after = try await reads.tours(ofGuide: guide) + reads.tours(ofGuide: other)
            #expect(Set(after) == Set(before), "the rebuilt read model equals the live one")
        }
    }
}

