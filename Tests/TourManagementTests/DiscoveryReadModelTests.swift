import Contracts
import EventSourcing
import Foundation
import Geo
import Logging
import Messaging
import ServiceTesting
import Testing
import TourManagement

/// One conformance suite for the discovery read model: the same searches on SQLite (FTS5, R*Tree) and PostgreSQL
/// (tsvector, PostGIS) give the same answers, and a rebuild equals the live model.
@Suite("tour-management: discovery read model on both backends")
struct DiscoveryReadModelTests {
    static let krems: Int64 = 2_773_300, monaco: Int64 = 2_993_458, vienna: Int64 = 2_761_369
    static let start = Date(timeIntervalSince1970: 1_795_341_600)

    struct Fixture {
        var oldTown = UUID.v4(), wine = UUID.v4(), night = UUID.v4(), hofburg = UUID.v4(), withdrawn = UUID.v4(), revised = UUID.v4()
    }

    static func stop(_ name: String, _ lat: Double, _ lng: Double) -> TourStop {
        TourStop(stopId: .v4(), name: name, description: "About \(name).", location: LatLng(lat: lat, lng: lng), triggerRadiusMetres: 30, media: [])
    }

    static func publish(_ store: AnyEventStore, _ id: UUID, revision: Int = 1, title: String, description: String, destination: Int64,
                        themes: [TourTheme], languages: [String], price: Int64, currency: CurrencyCode = .eur, minutes: Int,
                        mode: TourMode = .walk, stops: [TourStop], minutesAfterStart: Double) async throws {
        let details = TourDetails(title: title, description: description, destinationId: destination, themes: themes, languages: languages,
                                  price: Money(amountMinor: price, currency: currency), estimatedMinutes: minutes, difficulty: .easy, mode: mode)
        let event = TourPublished(tourId: id, guideId: UUID.v4(), revision: revision, details: details, stops: stops,
                                  lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()),
                                  publishedAt: start.addingTimeInterval(minutesAfterStart * 60))
        _ = try await store.append(try event.newEvent(), to: TourAggregate.streamID(id), expectedVersion: .any)
    }

    static func seed(_ store: AnyEventStore) async throws -> Fixture {
        let f = Fixture()
        try await publish(store, f.oldTown, title: "Krems old town", description: "Gates, churches and the Danube.", destination: krems,
                          themes: [.history, .architecture], languages: ["de", "en"], price: 0, minutes: 60,
                          stops: [stop("Steiner Tor", 48.4098, 15.5976), stop("Piaristenkirche", 48.4112, 15.6010)], minutesAfterStart: 1)
        try await publish(store, f.wine, title: "Wachau wine cycle", description: "Vineyards and Marillen orchards along the river.",
                          destination: krems, themes: [.food], languages: ["de-AT"], price: 1_500, minutes: 120, mode: .bike,
                          stops: [stop("Winzer Krems", 48.4200, 15.6200), stop("Dürnstein", 48.3953, 15.5205)], minutesAfterStart: 2)
        try await publish(store, f.night, title: "Monte-Carlo by night", description: "Lights, the casino square and the harbour.",
                          destination: monaco, themes: [.nightlife, .art], languages: ["fr", "en"], price: 2_500, minutes: 90,
                          stops: [stop("Café de Paris", 43.7390, 7.4277), stop("Port Hercule", 43.7347, 7.4206)], minutesAfterStart: 3)
        try await publish(store, f.hofburg, title: "Hofburg highlights", description: "The imperial palace in an hour.", destination: vienna,
                          themes: [.history], languages: ["en"], price: 2_000, currency: CurrencyCode("USD")!, minutes: 45,
                          stops: [stop("Michaelertor", 48.2079, 16.3668), stop("Heldenplatz", 48.2063, 16.3633)], minutesAfterStart: 4)
        try await publish(store, f.withdrawn, title: "Withdrawn walk", description: "Was public once.", destination: krems,
                          themes: [.history], languages: ["de"], price: 0, minutes: 30,
                          stops: [stop("Gozzoburg", 48.4105, 15.6003), stop("Simandlbrunnen", 48.4101, 15.6021)], minutesAfterStart: 5)
        _ = try await store.append(try TourUnpublished(tourId: f.withdrawn, unpublishedAt: start.addingTimeInterval(600)).newEvent(),
                                   to: TourAggregate.streamID(f.withdrawn), expectedVersion: .any)
        try await publish(store, f.revised, title: "Stein riverside (draft title)", description: "First version.", destination: krems,
                          themes: [.nature], languages: ["de"], price: 900, minutes: 75,
                          stops: [stop("Kunsthalle", 48.4075, 15.5900), stop("Donaulände", 48.4070, 15.5950)], minutesAfterStart: 6)
        try await publish(store, f.revised, revision: 2, title: "Stein riverside", description: "Along the Danube in Stein.", destination: krems,
                          themes: [.nature, .photography], languages: ["de", "en"], price: 900, minutes: 75,
                          stops: [stop("Kunsthalle", 48.4075, 15.5900), stop("Donaulände", 48.4070, 15.5950)], minutesAfterStart: 7)
        return f
    }

    static func withCatalog(_ backend: TestBackend,
                            _ body: @Sendable (TourCatalog, AnyEventStore, any ProjectionRunning) async throws -> Void)
        async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        try await backend.withServiceStorage("tour-management", logger: logger) { storage in
            let store = AnyEventStore(storage.store)
            let runner: any ProjectionRunning = if let sqlite = storage.sqlite {
                ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: sqlite, projection: SQLiteDiscoveryProjection()))
            } else {
                ProjectionRunner(store: store, target: PostgresProjectionTarget(database: storage.postgres!, projection: PostgresDiscoveryProjection()))
            }
            try await body(storage.tourCatalog, store, runner)
        }
    }

    static func ids(_ catalog: TourCatalog, _ configure: (inout DiscoveryFilter) throws -> Void, sort: DiscoverySort? = nil) async throws -> [UUID] {
        var filter = DiscoveryFilter()
        try configure(&filter)
        return try await catalog.search(DiscoveryQuery(filter: filter, sort: sort, limit: 50)).hits.map(\.tour.tourId)
    }

    /// Every page of a search, following `nextCursor`.
    static func allPages(_ catalog: TourCatalog, _ filter: DiscoveryFilter, sort: DiscoverySort, limit: Int) async throws -> [UUID] {
        var result: [UUID] = []
        var cursor: DiscoveryCursor?
        repeat {
            let page = try await catalog.search(DiscoveryQuery(filter: filter, sort: sort, cursor: cursor, limit: limit))
            #expect(page.hits.count <= limit)
            result += page.hits.map(\.tour.tourId)
            cursor = page.nextCursor
        } while cursor != nil && result.count < 100
        return result
    }

    @Test("filters, full text, sorts and cursors answer the same on both backends; a rebuild equals the live model",
          arguments: TestBackend.enabled)
    func searches(backend: TestBackend) async throws {
        try await Self.withCatalog(backend) { catalog, store, runner in
            let f = try await Self.seed(store)
            try await runner.catchUp()

            let listed: Set<UUID> = [f.oldTown, f.wine, f.night, f.hofburg, f.revised]
            #expect(Set(try await Self.ids(catalog) { _ in }) == listed, "unpublished tours are not listed")
            #expect(try await catalog.tour(f.withdrawn) == nil)
            let revised = try #require(try await catalog.tour(f.revised))
            #expect(revised.revision == 2 && revised.details.title == "Stein riverside")
            #expect(revised.firstPublishedAt == Self.start.addingTimeInterval(360), "first publication survives a new revision")

            #expect(Set(try await Self.ids(catalog) { $0.destinationId = Self.krems }) == [f.oldTown, f.wine, f.revised])
            #expect(Set(try await Self.ids(catalog) { $0.themes = [.food, .art] }) == [f.wine, f.night])
            #expect(try await Self.ids(catalog) { $0.freeOnly = true } == [f.oldTown])
            #expect(try await Self.ids(catalog) {
                $0.currency = .eur
                $0.minPriceMinor = 1_000
                $0.maxPriceMinor = 2_000
            } == [f.wine])
            #expect(try await Self.ids(catalog) { $0.currency = CurrencyCode("USD") } == [f.hofburg])
            #expect(Set(try await Self.ids(catalog) {
                $0.minMinutes = 60
                $0.maxMinutes = 90
            }) == [f.oldTown, f.night, f.revised])
            #expect(Set(try await Self.ids(catalog) { $0.language = "de" }) == [f.oldTown, f.wine, f.revised], "de matches de-AT")
            #expect(try await Self.ids(catalog) { $0.mode = .bike } == [f.wine])
            #expect(try await Self.ids(catalog) { $0.minRating = 4 } == [], "unrated tours have no average")

            // near: the exact great-circle radius, nearest first with distances.
            let kremsCentre = try Coordinate(latitude: 48.4092, longitude: 15.6142)
            var near = DiscoveryFilter()
            near.near = DiscoveryCircle(centre: kremsCentre, radiusMetres: 5_000)
            let nearby = try await catalog.search(DiscoveryQuery(filter: near, limit: 50))
            #expect(nearby.hits.map(\.tour.tourId) == [f.oldTown, f.wine, f.revised])
            let distances = nearby.hits.compactMap(\.distanceMetres)
            #expect(distances == distances.sorted() && distances.count == 3)
            let expected = kremsCentre.distance(to: try Coordinate(latitude: 48.4098, longitude: 15.5976))
            #expect(abs(distances[0] - expected) < 1, "distance \(distances[0]) vs \(expected)")
            near.near?.radiusMetres = 1_250
            #expect(try await catalog.search(DiscoveryQuery(filter: near)).hits.map(\.tour.tourId) == [f.oldTown])

            // Full text: folded (café = cafe), over title, description and stop names; the last term is a prefix.
            #expect(try await Self.ids(catalog) { $0.text = "cafe" } == [f.night])
            #expect(try await Self.ids(catalog) { $0.text = "STEINER" } == [f.oldTown])
            #expect(try await Self.ids(catalog) { $0.text = "marillen" } == [f.wine])
            #expect(try await Self.ids(catalog) { $0.text = "hofb" } == [f.hofburg])
            #expect(try await Self.ids(catalog) { $0.text = "durnstein" } == [f.wine])
            #expect(try await Self.ids(catalog) { $0.text = "danube casino" } == [])
            let danube = try await Self.ids(catalog) { $0.text = "danube" }
            #expect(Set(danube) == [f.oldTown, f.revised])
            let krems = try await Self.ids(catalog) { $0.text = "krems" }
            #expect(krems.first == f.oldTown, "a title match ranks above a stop-name match: \(krems)")
            #expect(Set(krems) == [f.oldTown, f.wine])

            // Sorts.
            #expect(try await Self.ids(catalog, { _ in }, sort: .newest) == [f.revised, f.hofburg, f.night, f.wine, f.oldTown])
            let byPrice = try await catalog.search(DiscoveryQuery(sort: .price, limit: 50)).hits.map(\.tour.details.price.amountMinor)
            #expect(byPrice == [0, 900, 1_500, 2_000, 2_500])
            let byRating = try await catalog.search(DiscoveryQuery(sort: .rating, limit: 50)).hits
            #expect(byRating.allSatisfy { $0.tour.rating.bayesian == TourRating.priorMean })

            // Cursors walk every listed tour exactly once, in every sort.
            for sort in [DiscoverySort.popularity, .newest, .price, .rating] {
                let pages = try await Self.allPages(catalog, DiscoveryFilter(), sort: sort, limit: 2)
                #expect(pages.count == 5 && Set(pages) == listed, "\(sort): \(pages)")
            }
            var text = DiscoveryFilter()
            text.text = "krems"
            #expect(try await Self.allPages(catalog, text, sort: .relevance, limit: 1) == krems)
            let nearPages = try await Self.allPages(catalog, { var n = near; n.near?.radiusMetres = 5_000; return n }(), sort: .distance, limit: 2)
            #expect(nearPages == [f.oldTown, f.wine, f.revised])

            // Popularity: completed purchases and acquisitions add one, a refund takes it back.
            let money = Money(amountMinor: 1_500, currency: .eur), guide = UUID.v4()
            for (tour, buyers) in [(f.wine, 3), (f.hofburg, 1)] {
                for _ in 0..<buyers {
                    let buyer = UUID.v4(), purchase = UUID.v4()
                    let stream = "access-\(tour.uuidString.lowercased())-\(buyer.uuidString.lowercased())"
                    _ = try await store.append(try PurchaseCompleted(purchaseId: purchase, tourId: tour, userId: buyer, guideId: guide, revision: 1,
                                                                     price: money, platformFee: money, guideEarnings: money, providerPaymentId: "pi",
                                                                     completedAt: Self.start).newEvent(), to: stream, expectedVersion: .any)
                    if tour == f.hofburg {
                        _ = try await store.append(try PurchaseRefunded(purchaseId: purchase, tourId: tour, userId: buyer, guideId: guide, amount: money,
                                                                        platformFee: money, guideEarnings: money, refundedAt: Self.start).newEvent(),
                                                   to: stream, expectedVersion: .any)
                    }
                }
            }
            let taker = UUID.v4()
            _ = try await store.append(try TourAcquired(tourId: f.oldTown, userId: taker, guideId: guide, revision: 1, acquiredAt: Self.start).newEvent(),
                                       to: "access-\(f.oldTown.uuidString.lowercased())-\(taker.uuidString.lowercased())", expectedVersion: .any)
            try await runner.catchUp()
            let popular = try await catalog.search(DiscoveryQuery(sort: .popularity, limit: 2)).hits.map { ($0.tour.tourId, $0.tour.popularity) }
            #expect(popular.map(\.0) == [f.wine, f.oldTown] && popular.map(\.1) == [3, 1])
            #expect(try await catalog.tour(f.hofburg)?.popularity == 0, "refunded")
            #expect(try await catalog.popularityByDestination() == [Self.krems: 4])

            // Broad queries: the word statistics bound the matches; above the threshold matches order by popularity.
            #expect(try await catalog.estimatedMatches("danube") == 2)
            #expect(try await catalog.estimatedMatches("krems") == 2)
            #expect(try await catalog.estimatedMatches("hof") == 1, "a prefix sums the words it begins")
            #expect(try await catalog.estimatedMatches("danube casino") == 1, "an upper bound: the rarer word's count")
            var broadFilter = DiscoveryFilter()
            broadFilter.text = "krems"
            let broad = try await catalog.withBroadQueryMatches(1).search(DiscoveryQuery(filter: broadFilter, limit: 50))
            #expect(broad.hits.map(\.tour.tourId) == [f.wine, f.oldTown], "by popularity (3, then 1)")
            // The broad path probes each tour's stored words; it finds what the ranked full-text path finds (every word,
            // the last one a prefix, folded case and diacritics).
            for text in ["krems", "kre", "KREMS wei", "danube cas", "hof", "hofburg", "wachau danube", "WÄCHAU vin", "zzz", "krems zzz"] {
                broadFilter.text = text
                let ranked = try await catalog.withBroadQueryMatches(1_000_000).search(DiscoveryQuery(filter: broadFilter, limit: 50))
                let probed = try await catalog.withBroadQueryMatches(0).search(DiscoveryQuery(filter: broadFilter, limit: 50))
                #expect(Set(probed.hits.map(\.tour.tourId)) == Set(ranked.hits.map(\.tour.tourId)), "\(text)")
            }

            // Map markers: the box, the filters.
            let box = try BoundingBox(queryValue: "15.5,48.3,15.7,48.5")
            #expect(Set(try await catalog.markers(in: box, filter: DiscoveryFilter()).map(\.tourId)) == [f.oldTown, f.wine, f.revised])
            var bikes = DiscoveryFilter()
            bikes.mode = .bike
            #expect(try await catalog.markers(in: box, filter: bikes).map(\.tourId) == [f.wine])
            let world = try await catalog.markers(in: .world, filter: DiscoveryFilter())
            #expect(world.count == 5)

            // Rebuild equals live.
            let before = try await catalog.search(DiscoveryQuery(sort: .newest, limit: 50))
            try await runner.rebuild()
            let after = try await catalog.search(DiscoveryQuery(sort: .newest, limit: 50))
            #expect(before == after)
        }
    }

    @Test("the map clusters markers per zoom level and splits them when zooming in")
    func clustering() throws {
        func marker(_ lat: Double, _ lng: Double) -> TourMarker {
            TourMarker(tourId: .v4(), title: "T", start: LatLng(lat: lat, lng: lng))
        }
        let krems = [marker(48.4098, 15.5976), marker(48.4112, 15.6010), marker(48.4075, 15.5900)]
        let monaco = [marker(43.7390, 7.4277)]
        let low = TourMapClustering.cluster(krems + monaco, zoom: 5)
        #expect(low.count == 2)
        guard case .cluster(let count, let centre, let bounds, let expansion, let ids) = low[0] else {
            Issue.record("expected a cluster first: \(low)")
            return
        }
        #expect(count == 3 && ids.count == 3 && expansion > 5 && expansion <= TourMapClustering.maximumClusterZoom)
        #expect(abs(centre.lat - 48.4095) < 0.001 && bounds.west == 15.59 && bounds.east == 15.601)
        if case .tour(let single) = low[1] { #expect(single.start.lat == 43.7390) } else { Issue.record("expected Monaco alone") }
        #expect(TourMapClustering.cluster(krems + monaco, zoom: 18).count == 4, "no clustering from the maximum zoom on")
        let split = TourMapClustering.cluster(krems, zoom: expansion)
        #expect(split.count > 1, "at the expansion zoom the cluster splits")
        let collection = try TourMapClustering.featureCollection(low)
        #expect(collection.features.count == 2)
        #expect(collection.features[0].properties?["cluster"] == true && collection.features[0].properties?["count"] == 3)
    }
}
