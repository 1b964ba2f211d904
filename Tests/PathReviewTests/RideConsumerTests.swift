import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
@testable import PathReview
import ServiceKit
import ServiceTesting
import Testing

/// The `waypoint.trips` consumer end to end on the embedded transport: a stand-in for record-trip (its embedded feed,
/// the log the test appends `RideSubmittedAsPathDraft` to) and path-review configured to pull from it.
@Suite("path-review: rides from waypoint.trips")
struct RideConsumerTests {
    static let token = "internal-token-for-path-review-tests"

    /// Runs `body` with record-trip's stand-in storage and its base URL.
    static func withRecordTrip(_ body: @escaping @Sendable (ServiceStorage, URL) async throws -> Void) async throws {
        try await TestBackend.sqlite.withServiceStorage("record-trip", logger: PathReviewApp.quiet) { storage in
            try await LoopbackServer.run({ reportPort in
                try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: "record-trip", port: 0, internalToken: token, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: PathReviewApp.quiet,
                    onServerRunning: { reportPort($0.localAddress!.port!) }
                ) { routes in storage.addFeedRoutes(to: routes) }
            }, body: { port in try await body(storage, URL(string: "http://127.0.0.1:\(port)")!) })
        }
    }

    @Test("a ride published on the embedded transport becomes the rider's draft, once, also when published twice",
          arguments: TestBackend.enabled)
    func endToEnd(backend: TestBackend) async throws {
        try await Self.withRecordTrip { recordTrip, url in
            try await PathReviewApp.with(backend, endpoints: ["record-trip": url]) { client, server, _ in
                let storage = server.storage
                let rider = UUID()
                let ride = try RideDraftsTests.ride(rider: rider)
                let event = try NewEvent(eventType: RideSubmittedAsPathDraft.eventType, schemaVersion: RideSubmittedAsPathDraft.schemaVersion,
                                         encoding: ride)
                let again = try NewEvent(eventType: RideSubmittedAsPathDraft.eventType, schemaVersion: RideSubmittedAsPathDraft.schemaVersion,
                                         encoding: ride)
                _ = try await recordTrip.store.append([event, again], to: "trip-\(UUID())", expectedVersion: .any)
                let token = try await TokenForge.token(rider)
                let listed = try await client.waitForJSON("/v1/paths/drafts", listing: 1, under: "drafts", token: token, timeout: .seconds(30))
                #expect(PathReviewApp.list(listed).map { $0["id"] as? String } == [ride.draftId.uuidString.lowercased()])
                #expect(PathReviewApp.list(listed).first?["source"] as? String == "ride")
                let opened = try await client.sendJSON(.get, "/v1/paths/drafts/\(ride.draftId.uuidString.lowercased())", token: token)
                #expect(opened.json["source"] as? String == "ride")
                let worker = RideDraftWorker(rides: server.rides, store: RideSubmissionStores.open(storage), logger: PathReviewApp.quiet)
                #expect(try await worker.applyPending() == 0, "every stored ride handled")
                let log = try await storage.store.readStream(PathDraftAggregate.streamID(ride.draftId))
                #expect(log.count == 1, "one creation")
            }
        }
    }
}
