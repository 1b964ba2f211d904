import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit

/// The bundles of a tour: stream `bundle-<tourId>` of `BundlePublished`, one per published revision (version 1, 2, …),
/// files content-addressed under `<data dir>/bundles/<tourId>/<sha256>.sqlite`.
public enum BundleAggregate: Aggregate {
    public enum Event: Sendable {
        case published(BundlePublished)
    }

    public struct State: Codable, Sendable {
        public var latest: BundlePublished?
    }

    public enum Command: Sendable {
        case publish(BundlePublished)
    }

    public static let initialState = State()
    public static let eventTypes = EventTypeMap<Event>().registering(BundlePublished.self) { .published($0) }

    public static func streamID(_ tour: UUID) -> String { "bundle-\(tour.uuidString.lowercased())" }

    public static func apply(_ state: State, _ event: Event) -> State {
        switch event {
        case .published(let e): State(latest: e)
        }
    }

    public static func decide(_ command: Command, _ state: State) throws -> [Event] {
        switch command {
        case .publish(let e): [.published(e)]
        }
    }

    public static func payload(of event: Event) -> any EventPayload {
        switch event {
        case .published(let e): e
        }
    }
}

/// Builds, records and signs offline bundles.
///
/// A bundle is built once per published revision — by ``BundlePublisher`` right after the publication, or on the first
/// download if that comes first — and recorded as `BundlePublished` with the next version at the stream version it
/// loaded (two builders racing: one wins, the other's file is deleted). Manifests are signed per download: `expiresAt`
/// is the download time plus ``manifestLifetime``, so an app must come online again within that time to keep a
/// refunded tour from staying usable forever.
public final class OfflineBundles: Sendable {
    public static let manifestLifetime: TimeInterval = 30 * 86_400

    let repository: AggregateRepository<BundleAggregate, AnyEventStore>
    public let signingKey: BundleSigningKey
    public let directory: URL
    let now: @Sendable () -> Date
    let locks = KeyedAsyncLock()
    let logger: Logger

    public init(store: AnyEventStore, signingKey: BundleSigningKey, directory: URL, now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger) {
        repository = AggregateRepository(store: store)
        self.signingKey = signingKey
        self.directory = directory
        self.now = now
        self.logger = logger
    }

    /// The file of a recorded bundle.
    public func file(_ bundle: BundlePublished) -> URL {
        directory.appendingPathComponent(bundle.tourId.uuidString.lowercased(), isDirectory: true)
            .appendingPathComponent("\(bundle.sha256).sqlite")
    }

    /// The latest recorded bundle of a tour.
    public func latest(_ tour: UUID) async throws -> BundlePublished? {
        try await repository.load(BundleAggregate.streamID(tour)).state.latest
    }

    /// The bundle of `tour`'s current revision, built and recorded now if there is none yet (or its file is gone).
    @discardableResult
    public func ensure(_ tour: PublishedTour) async throws -> BundlePublished {
        try await locks.withLock(tour.tourId.uuidString) {
            let stream = BundleAggregate.streamID(tour.tourId)
            let loaded = try await repository.load(stream)
            if let latest = loaded.state.latest, latest.revision == tour.revision, FileManager.default.fileExists(atPath: file(latest).path) {
                return latest
            }
            let version = (loaded.state.latest?.version ?? 0) + 1
            let createdAt = now().truncatedToSeconds
            let built = try OfflineBundleBuilder.build(tour, version: version, createdAt: createdAt, into: directory)
            let event = BundlePublished(tourId: tour.tourId, revision: tour.revision, version: version, sha256: built.sha256,
                                        sizeBytes: built.sizeBytes, createdAt: createdAt,
                                        expiresAt: createdAt.addingTimeInterval(Self.manifestLifetime))
            let final = file(event)
            do {
                if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.removeItem(at: final) }
                try FileManager.default.moveItem(at: built.url, to: final)
                _ = try await repository.store.append([try event.newEvent()], to: stream,
                                                      expectedVersion: loaded.version == 0 ? .noStream : .exact(loaded.version))
            } catch EventStoreError.wrongExpectedVersion {
                // Another instance recorded a bundle meanwhile: use it.
                try? FileManager.default.removeItem(at: final)
                guard let winner = try await repository.load(stream).state.latest else { throw EventStoreError.wrongExpectedVersion(
                    streamID: stream, expected: .exact(loaded.version), actual: 0) }
                return winner
            }
            logger.info("offline bundle built", metadata: [
                "tour": "\(tour.tourId)", "revision": "\(tour.revision)", "version": "\(version)", "bytes": "\(built.sizeBytes)"])
            return event
        }
    }

    /// The signed manifest of `bundle` for a download now.
    public func manifest(_ bundle: BundlePublished) throws -> SignedBundleManifest {
        let issued = now()
        return try signingKey.sign(BundleManifest(tourId: bundle.tourId, version: bundle.version, sha256: bundle.sha256,
                                                  sizeBytes: bundle.sizeBytes, createdAt: bundle.createdAt,
                                                  expiresAt: issued.addingTimeInterval(Self.manifestLifetime)))
    }
}
