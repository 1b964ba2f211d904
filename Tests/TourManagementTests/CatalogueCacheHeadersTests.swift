import Contracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

/// What tour-management tells the gateway's cache: tags and log positions on catalogue answers, the log head on writes.
@Suite("tour-management: cache tags and log positions for the gateway's cache")
struct CatalogueCacheHeadersTests {
    typealias Authoring = TourAuthoringRoutesTests

    static let tag = HTTPField.Name(CatalogueCacheTags.tagField)!
    static let position = HTTPField.Name(CatalogueCacheTags.positionField)!

    @Test("catalogue reads carry Cache-Tag and a Waypoint-Position that includes the write; writes carry the log head")
    func tagsAndPositions() async throws {
        try await Authoring.withService { client in
            let guide = try await TokenForge.token(Authoring.guide, role: .guide)
            let created = try await Authoring.send(client, .post, "/v1/tours", Authoring.draft, token: guide)
            let id = try #require(created.json["id"] as? String)
            #expect(created.headers[Self.position].flatMap { Int64($0) } != nil, "a successful write carries the log head")
            for stop in [#"{"name":"Steiner Tor","description":"The gate.","location":{"lat":48.4098,"lng":15.5976}}"#,
                         #"{"name":"Gozzoburg","description":"The palace.","location":{"lat":48.4105,"lng":15.6003}}"#] {
                #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/stops", stop, token: guide).status == 201)
            }
            let published = try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide)
            let written = try #require(published.headers[Self.position].flatMap { Int64($0) })
            #expect(written >= 4, "draft, two stops and the publication are in the log")
            let refused = try await Authoring.send(client, .post, "/v1/tours/\(UUID().uuidString.lowercased())/publish", token: guide)
            #expect(refused.status >= 400 && refused.headers[Self.position] == nil, "a refused write changed nothing")

            // Once the read model shows the tour, the answer says so by its position.
            let listed = try await client.waitForJSON("/v1/tours?destinationId=2773300", listing: 1, under: "tours", timeout: .seconds(30))
            #expect(!listed.isEmpty)
            let list = try await DiscoveryRoutesTests.get(client, "/v1/tours?destinationId=2773300")
            #expect(list.headers[Self.tag] == CatalogueCacheTags.tours)
            #expect((list.headers[Self.position].flatMap { Int64($0) } ?? 0) >= written)
            let detail = try await DiscoveryRoutesTests.get(client, "/v1/tours/\(id)")
            #expect(detail.headers[Self.tag] == CatalogueCacheTags.tour(UUID(uuidString: id)!))
            #expect((detail.headers[Self.position].flatMap { Int64($0) } ?? 0) >= written)
            let map = try await DiscoveryRoutesTests.get(client, "/v1/tours/map?bbox=15.5,48.3,15.7,48.5&zoom=14")
            #expect(map.headers[Self.tag] == CatalogueCacheTags.tours)
            let destinations = try await DiscoveryRoutesTests.get(client, "/v1/destinations?prefix=krems")
            #expect(destinations.headers[Self.tag] == CatalogueCacheTags.destinations)
            #expect(destinations.headers[Self.position].flatMap { Int64($0) } != nil)
            // Not-found and non-catalogue answers carry no tags.
            #expect(try await DiscoveryRoutesTests.get(client, "/v1/tours/\(UUID())").headers[Self.tag] == nil)
            #expect(try await DiscoveryRoutesTests.get(client, "/v1/tours/\(id)/route").headers[Self.tag] == nil)
        }
    }

    @Test("every event type tour-management publishes is classified: it changes catalogue tags, or none on purpose")
    func everyPublishedTypeIsClassified() {
        for type in TourManagementEvents.publishedTypes {
            let mapped = !CatalogueCacheTags.changed(byEventType: type, tourId: UUID()).isEmpty
            #expect(mapped != CatalogueCacheTags.changesNoPublicAnswer.contains(type), "\(type) must be mapped or listed as changing nothing")
            #expect(mapped == CatalogueCacheTags.changingTypes.contains(type), "\(type): changingTypes must list exactly the mapped types")
        }
        let tour = UUID()
        #expect(CatalogueCacheTags.changed(byEventType: TourPublished.eventType, tourId: tour)
            == [CatalogueCacheTags.tours, CatalogueCacheTags.destinations, CatalogueCacheTags.tour(tour)])
        #expect(CatalogueCacheTags.changed(byEventType: "SomethingNewer", tourId: tour).isEmpty)
    }
}
