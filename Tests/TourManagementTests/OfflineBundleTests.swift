import Contracts
import Crypto
import EventSourcing
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: signed offline bundles")
struct OfflineBundleTests {
    typealias Authoring = TourAuthoringRoutesTests

    static let t0 = Date(timeIntervalSince1970: 1_795_341_600)

    static func tour(stops count: Int = 3) -> PublishedTour {
        let stops = (0..<count).map { index in
            var stop = TourAggregateTests.stop("Stop \(index) Dürnstein", lat: 48.40 + Double(index) / 1_000, lng: 15.60, text: "Text of stop \(index).")
            if index == 0 {
                stop.media = [StopMedia(sha256: String(repeating: "ab", count: 32), kind: "audio", contentType: "audio/mpeg", size: 1_234)]
            }
            return stop
        }
        return PublishedTour(tourId: .v4(), guideId: .v4(), revision: 2, details: TourAggregateTests.details(), stops: stops)
    }

    @Test("a bundle holds the tour, its stops, an FTS5 index and the media manifest; verification passes and names every kind of tampering")
    func buildAndVerify() throws {
        let directory = TemporaryDirectory("waypoint-bundles")
        defer { directory.remove() }
        let tour = Self.tour()
        let built = try OfflineBundleBuilder.build(tour, version: 3, createdAt: Self.t0, into: directory.url)
        let queue = try DatabaseQueue(path: built.url.path)
        let (version, title, stops, media, match) = try queue.read { db in
            (try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'"),
             try String.fetchOne(db, sql: "SELECT title FROM tour"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM stops"),
             try String.fetchAll(db, sql: "SELECT path FROM media_manifest"),
             try Int.fetchOne(db, sql: "SELECT rowid FROM stop_text WHERE stop_text MATCH 'durnstein AND 1'"))
        }
        #expect(version == "3" && title == "Krems old town" && stops == 3)
        #expect(media == ["media/" + String(repeating: "ab", count: 32)])
        #expect(match == 2, "diacritics folded")
        try queue.close()

        let key = BundleSigningKey(privateKey: Curve25519.Signing.PrivateKey())
        let manifest = BundleManifest(tourId: tour.tourId, version: 3, sha256: built.sha256, sizeBytes: built.sizeBytes, createdAt: Self.t0,
                                      expiresAt: Self.t0.addingTimeInterval(86_400))
        let signed = try key.sign(manifest).encoded()
        let now = Self.t0.addingTimeInterval(60)
        #expect(try BundleVerifier.verify(bundle: built.url, manifest: signed, trusting: key.publicKey, now: now) == manifest)

        func failure(bundle: URL = built.url, manifest data: Data = signed, key trusted: BundlePublicKey = key.publicKey, at: Date = now)
            -> BundleVerificationError? {
            do {
                _ = try BundleVerifier.verify(bundle: bundle, manifest: data, trusting: trusted, now: at)
                return nil
            } catch {
                return error
            }
        }
        // Expired.
        #expect(failure(at: Self.t0.addingTimeInterval(2 * 86_400)) == .expired(manifest.expiresAt))
        // A manifest edited after signing.
        var edited = try SignedBundleManifest.decode(signed)
        edited.manifest.expiresAt = Self.t0.addingTimeInterval(365 * 86_400)
        #expect(failure(manifest: try edited.encoded()) == .badSignature)
        // Signed by someone else (with our key id claimed, and with their own).
        let forger = BundleSigningKey(privateKey: Curve25519.Signing.PrivateKey())
        var forged = try forger.sign(manifest)
        #expect(failure(manifest: try forged.encoded()) == .unknownKey(manifest: forger.keyId, trusted: key.keyId))
        forged.keyId = key.keyId
        #expect(failure(manifest: try forged.encoded()) == .badSignature)
        #expect(failure(manifest: Data("not json".utf8)).map { if case .unreadableManifest = $0 { true } else { false } } == true)
        // A bundle altered in place, or cut short.
        let tampered = directory.url.appendingPathComponent("tampered.sqlite")
        var bytes = try Data(contentsOf: built.url)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: tampered)
        #expect(failure(bundle: tampered).map { if case .hashMismatch = $0 { true } else { false } } == true)
        try bytes.prefix(bytes.count - 100).write(to: tampered)
        #expect(failure(bundle: tampered) == .sizeMismatch(manifest: built.sizeBytes, file: built.sizeBytes - 100))
        // A genuine bundle of another version under this manifest.
        let other = try OfflineBundleBuilder.build(tour, version: 4, createdAt: Self.t0, into: directory.url.appendingPathComponent("x"))
        let mismatched = try key.sign(BundleManifest(tourId: tour.tourId, version: 3, sha256: other.sha256, sizeBytes: other.sizeBytes,
                                                     createdAt: Self.t0, expiresAt: manifest.expiresAt)).encoded()
        #expect(failure(bundle: other.url, manifest: mismatched).map { if case .contentMismatch = $0 { true } else { false } } == true)
        #expect(failure().map(\.description) == nil)
        #expect(BundleVerificationError.badSignature.description.contains("altered"))
    }

    @Test("owners download the bundle (resumable) and a signed manifest; others get 403; a new revision makes version 2; verify-bundle agrees")
    func overHTTP() async throws {
        try await Authoring.withServiceAndStorage { client, storage in
            let (id, _) = try await ProgressRoutesTests.publishedTour(client)
            let travellerId = UUID.v4().uuidString.lowercased()
            let traveller = try await TokenForge.token(travellerId, role: .traveller)
            let guide = try await TokenForge.token(Authoring.guide, role: .guide)
            #expect(try await Authoring.send(client, .get, "/v1/tours/\(id)/bundle", token: traveller).status == 403)
            try await ProgressRoutesTests.acquire(storage, tour: id, user: travellerId)
            _ = try await ProgressRoutesTests.entitled(client, id, token: traveller)

            let keyResponse = try await client.executeRequest(uri: "/v1/bundles/public-key", method: .get, headers: [:], body: nil)
            #expect(keyResponse.status == .ok)
            let publicKey = try JSONDecoder().decode(BundlePublicKey.self, from: Data(buffer: keyResponse.body))

            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(traveller)"
            let whole = try await client.executeRequest(uri: "/v1/tours/\(id)/bundle", method: .get, headers: headers, body: nil)
            #expect(whole.status == .ok && whole.headers[.contentType] == BundleRoutes.contentType)
            #expect(whole.headers[HTTPField.Name("Bundle-Version")!] == "1")
            let file = Data(buffer: whole.body)
            let manifestResponse = try await client.executeRequest(uri: "/v1/tours/\(id)/bundle/manifest", method: .get, headers: headers, body: nil)
            let manifestData = Data(buffer: manifestResponse.body)

            // An interrupted download resumes with a range.
            var ranged = headers
            ranged[.range] = "bytes=100-"
            ranged[.ifRange] = whole.headers[.eTag]
            let rest = try await client.executeRequest(uri: "/v1/tours/\(id)/bundle", method: .get, headers: ranged, body: nil)
            #expect(rest.status == .partialContent && Data(buffer: rest.body) == file.dropFirst(100))

            let directory = TemporaryDirectory("waypoint-bundle-download")
            defer { directory.remove() }
            let bundleURL = directory.url.appendingPathComponent("bundle.sqlite")
            let manifestURL = directory.url.appendingPathComponent("manifest.json")
            let keyURL = directory.url.appendingPathComponent("key.json")
            try file.write(to: bundleURL)
            try manifestData.write(to: manifestURL)
            try Data(buffer: keyResponse.body).write(to: keyURL)
            let verified = try BundleVerifier.verify(bundle: bundleURL, manifest: manifestData, trusting: publicKey)
            #expect(verified.version == 1 && verified.tourId.uuidString.lowercased() == id)
            #expect(verified.expiresAt > Date().addingTimeInterval(29 * 86_400))

            // The command line: OK, then a tampered file with the reason.
            let ok = try Self.run(["verify-bundle", bundleURL.path, manifestURL.path, "--public-key", keyURL.path])
            #expect(ok.status == 0 && ok.output.hasPrefix("OK: tour \(id), bundle version 1"))
            var bytes = file
            bytes[bytes.count - 10] ^= 0x01
            try bytes.write(to: bundleURL)
            let bad = try Self.run(["verify-bundle", bundleURL.path, manifestURL.path, "--public-key", keyURL.path])
            #expect(bad.status == 1 && bad.error.contains("FAILED: the bundle file's SHA-256"))

            // A new revision: the publisher builds version 2.
            #expect(try await Authoring.send(client, .put, "/v1/tours/\(id)/details",
                                             Authoring.draft.replacingOccurrences(of: "Krems old town", with: "Krems old town, revised"),
                                             token: guide).status == 200)
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide).status == 200)
            var version = 0
            try await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
                version = try await storage.store.readStream("bundle-\(id)").count
                return version == 2
            }
            #expect(version == 2)
            let second = try await client.executeRequest(uri: "/v1/tours/\(id)/bundle/manifest", method: .get, headers: headers, body: nil)
            #expect(try SignedBundleManifest.decode(Data(buffer: second.body)).manifest.version == 2)
        }
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "waypoint")
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
