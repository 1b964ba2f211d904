import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import ServiceKit
import ServiceTesting
import Testing
@testable import TourManagement

@Suite("tour-management: /v1/media over HTTP")
struct MediaRoutesTests {
    /// The upload route needs a body limit of 100 MiB: the configuration a deployment must give too.
    static func withApp(maxBodyBytes: Int = MediaKind.largestMaximumBytes, framework: TestingSetup = .router,
                        _ body: @Sendable (any TestClientProtocol, MediaStore) async throws -> Void) async throws {
        try await MediaTestSupport.withStore { store, _ in
            let app = try ServiceApplication(
                configuration: ServiceConfiguration(serviceName: "tour-management", port: 0, maxBodyBytes: maxBodyBytes, logLevel: .warning),
                metrics: ServiceMetrics(),
                keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                logger: MediaTestSupport.quiet
            ) { routes in
                let media = MediaRoutes(store: store)
                media.addPublic(to: routes.group("/v1/media"))
                media.addUploads(to: routes.authenticated("/v1/media", requiring: .guide, .admin))
            }
            try await app.test(framework) { client in try await body(client, store) }
        }
    }

    static func bearer(_ role: Role) async throws -> HTTPFields {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(try await TokenForge.valid(role: role))"
        return headers
    }

    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
    }

    static func upload(_ client: any TestClientProtocol, _ bytes: [UInt8], role: Role = .guide,
                       contentType: String = "application/octet-stream") async throws -> TestResponse {
        var headers = try await bearer(role)
        headers[.contentType] = contentType
        return try await client.execute(uri: "/v1/media", method: .post, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    @Test("POST /v1/media stores by magic bytes for guides and admins: 201 with the object and Location; 401, 403, 415, 413")
    func uploads() async throws {
        try await Self.withApp { client, store in
            let bytes = MediaSamples.largePNG(padding: 50_000)
            let digest = MediaSamples.sha256(bytes)
            // The declared Content-Type is ignored: magic bytes decide.
            let created = try await Self.upload(client, bytes, contentType: "video/mp4")
            #expect(created.status == .created)
            #expect(created.headers[.location] == "/v1/media/\(digest)")
            let object = Self.json(created)
            #expect(object["sha256"] as? String == digest)
            #expect(object["kind"] as? String == "image")
            #expect(object["contentType"] as? String == "image/png")
            #expect(object["size"] as? Int == bytes.count)
            #expect(object["url"] as? String == "/v1/media/\(digest)")
            #expect((object["uploadedAt"] as? String)?.hasSuffix("Z") == true)
            #expect(object["uploadedBy"] == nil)
            #expect(try await store.object(sha256: digest)?.uploadedBy == "user-42")

            let again = try await Self.upload(client, bytes, role: .admin)
            #expect(again.status == .created)
            #expect(Self.json(again)["sha256"] as? String == digest)

            let anonymous = try await client.execute(uri: "/v1/media", method: .post, body: ByteBuffer(bytes: bytes))
            #expect(anonymous.status == .unauthorized)
            #expect(try await Self.upload(client, bytes, role: .traveller).status == .forbidden)

            let gif = try await Self.upload(client, Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 100), contentType: "image/png")
            #expect(gif.status == .unsupportedMediaType)
            #expect(gif.headers[.contentType] == "application/problem+json")
            #expect(Self.json(gif)["code"] as? String == "unsupported-media-type")

            let huge = try await Self.upload(client, MediaSamples.jpeg + [UInt8](repeating: 7, count: 7 * 1_048_576))
            #expect(huge.status == .contentTooLarge)
            #expect(Self.json(huge)["code"] as? String == "payload-too-large")
            #expect(MediaTestSupport.files(under: store.root) == ["/sha256/\(digest.prefix(2))/\(digest)"])
        }
    }

    @Test("with ServiceKit's default 1 MiB body limit an upload over 1 MiB is refused before the route runs")
    func defaultBodyLimit() async throws {
        try await Self.withApp(maxBodyBytes: ServiceConfiguration.defaultMaxBodyBytes) { client, store in
            let response = try await Self.upload(client, MediaSamples.ogg + [UInt8](repeating: 1, count: 2 * 1_048_576))
            #expect(response.status == .contentTooLarge)
            #expect(MediaTestSupport.files(under: store.root).isEmpty)
        }
    }

    @Test("a PNG that is also an HTML page is stored as image/png and served so no browser can run it: nosniff, sandbox CSP, inline with a file name")
    func polyglotIsServedInert() async throws {
        try await Self.withApp { client, _ in
            // A real PNG whose padding carries a script page: sniffing browsers used to render such files as HTML.
            var bytes = MediaSamples.largePNG(padding: 2_000)
            bytes += Array("<html><body><script>alert(document.cookie)</script></body></html>".utf8)
            let created = try await Self.upload(client, bytes, contentType: "text/html")
            #expect(created.status == .created)
            #expect(Self.json(created)["contentType"] as? String == "image/png")
            let digest = MediaSamples.sha256(bytes)
            let served = try await client.execute(uri: "/v1/media/\(digest)", method: .get)
            #expect(served.status == .ok)
            #expect(served.headers[.contentType] == "image/png")
            #expect(served.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(served.headers[.contentSecurityPolicy] == "sandbox; default-src 'none'")
            #expect(served.headers[HTTPField.Name("Content-Disposition")!] == "inline; filename=\"\(digest).png\"")
            let ranged = try await client.execute(uri: "/v1/media/\(digest)", method: .get, headers: [.range: "bytes=0-9"])
            #expect(ranged.status == .partialContent)
            #expect(ranged.headers[.contentSecurityPolicy] == "sandbox; default-src 'none'")
        }
        #expect(MediaRoutes.userContentHeaders(sha256: "ab", contentType: "image/svg+xml").contains { $0.1 == "attachment; filename=\"ab.svg\"" })
        #expect(MediaRoutes.userContentHeaders(sha256: "ab", contentType: "application/pdf").contains { $0.1 == "attachment; filename=\"ab.pdf\"" })
        #expect(MediaRoutes.userContentHeaders(sha256: "ab", contentType: "audio/mpeg").contains { $0.1 == "inline; filename=\"ab.mpeg\"" })
    }

    @Test("GET /v1/media/{sha256}: whole, first bytes, suffix, open-ended, unsatisfiable, several ranges, If-None-Match, 404")
    func downloads() async throws {
        try await Self.withApp { client, store in
            let bytes = MediaSamples.largePNG(padding: 300_000)
            let digest = MediaSamples.sha256(bytes)
            #expect(try await Self.upload(client, bytes).status == .created)
            let uri = "/v1/media/\(digest)"
            let size = bytes.count

            let whole = try await client.execute(uri: uri, method: .get)
            #expect(whole.status == .ok)
            #expect(whole.headers[.contentType] == "image/png")
            #expect(whole.headers[.contentLength] == String(size))
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.eTag] == "\"\(digest)\"")
            #expect(whole.headers[.cacheControl]?.contains("max-age=31536000") == true)
            #expect(Array(buffer: whole.body) == bytes)

            func get(range: String, _ extra: HTTPFields = [:]) async throws -> TestResponse {
                var headers = extra
                headers[.range] = range
                return try await client.execute(uri: uri, method: .get, headers: headers)
            }

            let first = try await get(range: "bytes=0-99")
            #expect(first.status == .partialContent)
            #expect(first.headers[.contentRange] == "bytes 0-99/\(size)")
            #expect(first.headers[.contentLength] == "100")
            #expect(Array(buffer: first.body) == Array(bytes[0...99]))

            let suffix = try await get(range: "bytes=-500")
            #expect(suffix.status == .partialContent)
            #expect(suffix.headers[.contentRange] == "bytes \(size - 500)-\(size - 1)/\(size)")
            #expect(Array(buffer: suffix.body) == Array(bytes[(size - 500)...]))

            let openEnded = try await get(range: "bytes=200000-")
            #expect(openEnded.status == .partialContent)
            #expect(openEnded.headers[.contentRange] == "bytes 200000-\(size - 1)/\(size)")
            #expect(Array(buffer: openEnded.body) == Array(bytes[200_000...]))

            let past = try await get(range: "bytes=\(size)-")
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.contentRange] == "bytes */\(size)")
            #expect(Self.json(past)["code"] as? String == "range-not-satisfiable")

            let several = try await get(range: "bytes=0-1,5-6")
            #expect(several.status == .ok)
            #expect(Array(buffer: several.body) == bytes)

            var staleIfRange = HTTPFields()
            staleIfRange[.ifRange] = "\"other\""
            #expect(try await get(range: "bytes=0-1", staleIfRange).status == .ok)
            var matchingIfRange = HTTPFields()
            matchingIfRange[.ifRange] = "\"\(digest)\""
            #expect(try await get(range: "bytes=0-1", matchingIfRange).status == .partialContent)

            for tag in ["\"\(digest)\"", "W/\"\(digest)\"", "\"x\", \"\(digest)\"", "*"] {
                var headers = HTTPFields()
                headers[.ifNoneMatch] = tag
                let cached = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(cached.status == .notModified, "\(tag)")
                #expect(cached.body.readableBytes == 0)
                #expect(cached.headers[.eTag] == "\"\(digest)\"")
            }
            var otherTag = HTTPFields()
            otherTag[.ifNoneMatch] = "\"something-else\""
            #expect(try await client.execute(uri: uri, method: .get, headers: otherTag).status == .ok)

            for missing in ["/v1/media/\(String(repeating: "0", count: 64))", "/v1/media/not-a-digest", "/v1/media/\(digest.uppercased())"] {
                let response = try await client.execute(uri: missing, method: .get)
                #expect(response.status == .notFound, "\(missing)")
                #expect(Self.json(response)["code"] as? String == "unknown-media")
            }
            var anyTag = HTTPFields()
            anyTag[.ifNoneMatch] = "*"
            #expect(try await client.execute(uri: "/v1/media/\(String(repeating: "0", count: 64))", method: .get, headers: anyTag).status
                == .notFound)
        }
    }

    @Test("over a real socket: a 12 MiB MP4 goes up and comes back whole and in ranges")
    func live() async throws {
        try await Self.withApp(framework: .live) { client, store in
            var bytes = MediaSamples.ftyp("isom")
            bytes += MediaSamples.largePNG(padding: 12 * 1_048_576 - bytes.count - MediaSamples.png.count, seed: 9)
            // Its own client with a generous deadline: the testing framework's is a fixed 20 s, which moving 36 MiB
            // in a debug build missed while every other suite ran on the same two cores.
            let base = "http://127.0.0.1:\(try #require(client.port))"
            func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws
                -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
                var request = HTTPClientRequest(url: base + path)
                request.method = method
                for (name, value) in headers { request.headers.add(name: name, value: value) }
                if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(180))
                let received = try await response.body.collect(upTo: 64 << 20)
                return (Int(response.status.code), response.headers, Array(buffer: received))
            }
            let token = try await TokenForge.valid(role: .guide)
            let created = try await send(.POST, "/v1/media", headers: [("Authorization", "Bearer \(token)"),
                                                                       ("Content-Type", "application/octet-stream")], body: bytes)
            #expect(created.status == 201)
            let object = (try? JSONSerialization.jsonObject(with: Data(created.body))) as? [String: Any] ?? [:]
            let digest = try #require(object["sha256"] as? String)
            #expect(digest == MediaSamples.sha256(bytes))
            #expect(object["contentType"] as? String == "video/mp4")
            let whole = try await send(.GET, "/v1/media/\(digest)")
            #expect(whole.status == 200 && whole.headers.first(name: "content-length") == String(bytes.count))
            #expect(whole.body == bytes)
            let part = try await send(.GET, "/v1/media/\(digest)", headers: [("Range", "bytes=5000000-5999999")])
            #expect(part.status == 206)
            #expect(part.body == Array(bytes[5_000_000...5_999_999]))
        }
    }
}
