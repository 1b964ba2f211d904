import Contracts
import Foundation
import Geo
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: authoring over HTTP (guides only, owner only, conditional edits)")
struct TourAuthoringRoutesTests {
    static let guide = UUID.v4().uuidString.lowercased()
    static let otherGuide = UUID.v4().uuidString.lowercased()

    /// The route table of the assembled service (for the OpenAPI test).
    static func routeTable() async throws -> [(method: String, path: String)] {
        try await withApplication { app, _ in app.routeTable }
    }

    /// A service on SQLite in a temporary directory; the gazetteer is imported on first start.
    /// `authURL` is where auth's feed and profiles are (by default a closed loopback port: no names, no interference).
    static func withService(authURL: URL = URL(string: "http://127.0.0.1:9")!,
                            _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await withApplication(authURL: authURL) { app, _ in try await app.test(.router) { client in try await body(client) } }
    }

    /// ``withService(authURL:_:)`` with the service's storage at hand (to append events no route makes yet).
    static func withServiceAndStorage(authURL: URL = URL(string: "http://127.0.0.1:9")!, endpoints: [String: URL] = [:],
                                      _ body: @Sendable (any TestClientProtocol, ServiceStorage) async throws -> Void) async throws {
        try await withApplication(authURL: authURL, endpoints: endpoints) { app, storage in
            try await app.test(.router) { client in try await body(client, storage) }
        }
    }

    static func withApplication<T: Sendable>(authURL: URL = URL(string: "http://127.0.0.1:9")!, endpoints: [String: URL] = [:],
                                             _ body: @Sendable (ServiceApplication, ServiceStorage) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory("waypoint-tours-http")
        defer { directory.remove() }
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            return logger
        }()
        let configuration = TourManagementConfiguration(
            service: ServiceConfiguration(serviceName: "tour-management", port: 0, internalToken: GuideProfilesTests.token, logLevel: .warning),
            runtime: try TestBackend.sqlite.runtime("tour-management", in: directory),
            endpoints: ServiceEndpoints(baseURLs: endpoints.merging(["auth": authURL]) { $1 }))
        return try await ServiceStorage.withOpen(configuration.runtime, logger: logger) { storage in
            // A one-city gazetteer: the full import is tested once (TourManagementServerTests), not in every test.
            _ = try await TourManagementStores.open(storage).destinations.upsert([
                City(id: 2_773_300, name: "Krems an der Donau", country: "AT", coordinate: try Coordinate(latitude: 48.40921, longitude: 15.61415)),
            ])
            let server = try await TourManagementServer.assemble(configuration, storage: storage, logger: logger)
            let app = try server.application(
                metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                logger: logger)
            return try await body(app, storage)
        }
    }

    static func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
                     token: String, headers extra: HTTPFields = [:]) async throws -> JSONReply {
        try await client.sendJSON(method, uri, json: json, token: token, headers: extra)
    }

    static let draft = #"{"title":"Krems old town","description":"Gates, churches and wine.","destinationId":2773300,"themes":["history"],"languages":["de","en"],"price":{"amountMinor":0,"currency":"EUR"},"estimatedMinutes":60,"difficulty":"easy","mode":"walk"}"#

    @Test("a guide drafts, adds stops, publishes; incomplete tours list what is missing; travellers and other guides are refused")
    func authoring() async throws {
        try await Self.withService { client in
            let guide = try await TokenForge.token(Self.guide, role: .guide)
            let traveller = try await TokenForge.token(UUID.v4().uuidString.lowercased(), role: .traveller)
            let other = try await TokenForge.token(Self.otherGuide, role: .guide)
            #expect(try await Self.send(client, .post, "/v1/tours", Self.draft, token: traveller).status == 403)
            let created = try await Self.send(client, .post, "/v1/tours", Self.draft, token: guide)
            #expect(created.status == 201)
            let id = try #require(created.json["id"] as? String)
            #expect(created.json["status"] as? String == "draft")

            let incomplete = try await Self.send(client, .post, "/v1/tours/\(id)/publish", token: guide)
            #expect(incomplete.status == 422)
            let missing = (incomplete.json["fieldErrors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(missing == ["stops"])

            let stopA = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                            #"{"name":"Steiner Tor","description":"The gate.","location":{"lat":48.4098,"lng":15.5976}}"#, token: guide)
            #expect(stopA.status == 201)
            #expect(try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                        #"{"name":"Other","description":"x","location":{"lat":48.41,"lng":15.6}}"#, token: other).status == 403)
            let stopB = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                            #"{"name":"Piaristenkirche","description":"Baroque.","location":{"lat":48.4106,"lng":15.6013},"triggerRadiusMetres":50}"#,
                                            token: guide)
            #expect((stopB.json["stops"] as? [Any])?.count == 2)
            #expect((stopB.json["lengthMetres"] as? Int).map { $0 > 250 && $0 < 350 } == true)
            let published = try await Self.send(client, .post, "/v1/tours/\(id)/publish", token: guide)
            #expect(published.status == 200)
            #expect(published.json["status"] as? String == "published")
            #expect(published.json["revision"] as? Int == 1)
            let mine = try await Self.send(client, .get, "/v1/guides/me/tours/\(id)", token: guide)
            #expect(mine.status == 200 && mine.headers[.eTag] != nil)
            #expect(try await Self.send(client, .get, "/v1/guides/me/tours/\(id)", token: other).status == 403)
            #expect(try await Self.send(client, .delete, "/v1/tours/\(id)", token: guide).status == 409, "a published tour is not deleted")
        }
    }

    @Test("bad input is 422 with field errors: unknown theme and destination, negative price, unsupported currency, bad coordinates and radius")
    func badInput() async throws {
        try await Self.withService { client in
            let guide = try await TokenForge.token(Self.guide, role: .guide)
            let bad = #"{"title":"K","description":"","destinationId":1,"themes":["history","ghosts"],"languages":["english!"],"price":{"amountMinor":-5,"currency":"XXY"},"estimatedMinutes":0,"difficulty":"extreme","mode":"swim"}"#
            let reply = try await Self.send(client, .post, "/v1/tours", bad, token: guide)
            #expect(reply.status == 422)
            let fields = Set(((reply.json["fieldErrors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(fields.isSuperset(of: ["title", "themes[1]", "languages[0]", "price.amountMinor", "price.currency",
                                           "estimatedMinutes", "difficulty", "mode"]))
            let unknownDestination = Self.draft.replacingOccurrences(of: "2773300", with: "1")
            let destination = try await Self.send(client, .post, "/v1/tours", unknownDestination, token: guide)
            #expect(destination.status == 422)
            let created = try await Self.send(client, .post, "/v1/tours", Self.draft, token: guide)
            let id = try #require(created.json["id"] as? String)
            let stop = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                           #"{"name":"","location":{"lat":91,"lng":200},"triggerRadiusMetres":5}"#, token: guide)
            #expect(stop.status == 422)
            let stopFields = Set(((stop.json["fieldErrors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(stopFields == ["name", "location.lat", "location.lng", "triggerRadiusMetres"])
        }
    }

    @Test("conditional edits: an If-Match that is not the current version is refused, so no update is lost")
    func conditionalEdits() async throws {
        try await Self.withService { client in
            let guide = try await TokenForge.token(Self.guide, role: .guide)
            let created = try await Self.send(client, .post, "/v1/tours", Self.draft, token: guide)
            let id = try #require(created.json["id"] as? String)
            let etag = try #require(created.headers[.eTag])
            let changed = Self.draft.replacingOccurrences(of: "Krems old town", with: "Krems by night")
            let first = try await Self.send(client, .put, "/v1/tours/\(id)/details", changed, token: guide, headers: [.ifMatch: etag])
            #expect(first.status == 200)
            let stale = Self.draft.replacingOccurrences(of: "Krems old town", with: "Krems at dawn")
            let second = try await Self.send(client, .put, "/v1/tours/\(id)/details", stale, token: guide, headers: [.ifMatch: etag])
            #expect(second.status == 412)
            let now = try await Self.send(client, .get, "/v1/guides/me/tours/\(id)", token: guide)
            #expect(now.json["title"] as? String == "Krems by night")
        }
    }

    @Test("media: a 2 MiB image uploads past the 1 MiB JSON limit, attaches to a stop (which then needs no text) and is served; unknown media is 422")
    func mediaThroughTheService() async throws {
        try await Self.withService { client in
            let guide = try await TokenForge.token(Self.guide, role: .guide)
            var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            png.append(Data(repeating: 0x42, count: 2 * 1_048_576))
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(guide)"
            headers[.contentType] = "image/png"
            let upload = try await client.executeRequest(uri: "/v1/media", method: .post, headers: headers, body: ByteBuffer(data: png))
            #expect(upload.status == .created)
            let object = (try? JSONSerialization.jsonObject(with: Data(buffer: upload.body))) as? [String: Any] ?? [:]
            let sha = try #require(object["sha256"] as? String)
            #expect(try await Self.send(client, .post, "/v1/tours", String(repeating: "x", count: 1_100_000), token: guide).status == 413,
                    "JSON routes keep the 1 MiB limit")

            let created = try await Self.send(client, .post, "/v1/tours", Self.draft, token: guide)
            let id = try #require(created.json["id"] as? String)
            let unknown = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                              #"{"name":"Gate","location":{"lat":48.4098,"lng":15.5976},"media":["\#(String(repeating: "a", count: 64))"]}"#,
                                              token: guide)
            #expect(unknown.status == 422)
            let withMedia = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                                #"{"name":"Gate","location":{"lat":48.4098,"lng":15.5976},"media":["\#(sha)"]}"#, token: guide)
            #expect(withMedia.status == 201)
            let stops = try #require(withMedia.json["stops"] as? [[String: Any]])
            #expect(((stops.first?["media"] as? [[String: Any]])?.first?["contentType"] as? String) == "image/png")
            let second = try await Self.send(client, .post, "/v1/tours/\(id)/stops",
                                             #"{"name":"Church","location":{"lat":48.4106,"lng":15.6013}}"#, token: guide)
            let secondStop = try #require((second.json["stops"] as? [[String: Any]])?.last?["stopId"] as? String)
            #expect(try await Self.send(client, .post, "/v1/tours/\(id)/stops/\(secondStop)/media", #"{"sha256":"\#(sha)"}"#, token: guide).status == 200)
            #expect(try await Self.send(client, .post, "/v1/tours/\(id)/publish", token: guide).status == 200)
            let download = try await client.executeRequest(uri: "/v1/media/\(sha)", method: .get, headers: [.range: "bytes=0-7"], body: nil)
            #expect(download.status == .partialContent)
            #expect(Array(download.body.readableBytesView) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
    }

    @Test("GET /v1/guides/me/tours lists the guide's own tours from the read model (the running service's projection)")
    func myTours() async throws {
        let directory = TemporaryDirectory("waypoint-tours-live")
        defer { directory.remove() }
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            return logger
        }()
        let configuration = TourManagementConfiguration(
            service: ServiceConfiguration(serviceName: "tour-management", port: 0, internalToken: GuideProfilesTests.token, logLevel: .warning),
            runtime: try TestBackend.sqlite.runtime("tour-management", in: directory),
            endpoints: ServiceEndpoints(baseURLs: ["auth": URL(string: "http://127.0.0.1:9")!]))
        try await ServiceStorage.withOpen(configuration.runtime, logger: logger) { storage in
            _ = try await TourManagementStores.open(storage).destinations.upsert([
                City(id: 2_773_300, name: "Krems an der Donau", country: "AT", coordinate: try Coordinate(latitude: 48.40921, longitude: 15.61414)),
            ])
            let server = try await TourManagementServer.assemble(configuration, storage: storage, logger: logger)
            let app = try server.application(
                metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                logger: logger)
            try await app.test(.live) { client in
                let guide = try await TokenForge.token(Self.guide, role: .guide)
                let other = try await TokenForge.token(Self.otherGuide, role: .guide)
                let created = try await Self.send(client, .post, "/v1/tours", Self.draft, token: guide)
                let id = try #require(created.json["id"] as? String)
                _ = try await Self.send(client, .post, "/v1/tours", Self.draft, token: other)
                var listed: [[String: Any]] = []
                try await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
                    listed = (try await Self.send(client, .get, "/v1/guides/me/tours", token: guide).json["tours"] as? [[String: Any]]) ?? []
                    return !listed.isEmpty
                }
                #expect(listed.count == 1)
                #expect((listed.first?["tourId"] as? String)?.lowercased() == id)
                #expect(listed.first?["status"] as? String == "draft")
            }
        }
    }
}
