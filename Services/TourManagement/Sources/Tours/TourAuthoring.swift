import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// Authoring commands over the log: load the tour, check `If-Match`, decide, append at the loaded version — a
/// concurrent edit is a 409, never a lost update.
public struct TourAuthoring: Sendable {
    let repository: AggregateRepository<TourAggregate, AnyEventStore>
    let destinations: DestinationIndex
    let media: MediaStore
    public let now: @Sendable () -> Date

    public init(store: AnyEventStore, destinations: DestinationIndex, media: MediaStore, now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: store)
        self.destinations = destinations
        self.media = media
        self.now = now
    }

    /// The uploads named by `addresses`, as stop media; 422 for any that was never uploaded.
    func resolveMedia(_ addresses: [String], field: String) async throws -> [StopMedia] {
        var resolved: [StopMedia] = []
        var errors: [FieldError] = []
        for (index, address) in addresses.enumerated() {
            if let object = try await media.object(sha256: address.lowercased()) {
                resolved.append(StopMedia(sha256: object.sha256, kind: object.kind.rawValue, contentType: object.contentType, size: Int64(object.size)))
            } else {
                errors.append(FieldError(field: "\(field)[\(index)]", code: "unknown-media", message: "was not uploaded (POST /v1/media)"))
            }
        }
        guard errors.isEmpty else { throw Problem.unprocessable(fieldErrors: errors) }
        return resolved
    }

    /// Runs `command` on `tourId`; `ifMatch` is the version the caller last saw, when it sent one.
    public func execute(_ command: TourCommand, on tourId: UUID, ifMatch: Int64?, metadata: EventMetadata) async throws -> (TourState, Int64) {
        let stream = TourAggregate.streamID(tourId)
        do {
            let loaded = try await repository.load(stream)
            if let ifMatch, ifMatch != loaded.version {
                throw Problem(status: .preconditionFailed, code: "version-mismatch", title: "Version mismatch",
                              detail: "The tour is at version \(loaded.version), not \(ifMatch); reload it and retry.")
            }
            let events = try TourAggregate.decide(command, loaded.state)
            guard !events.isEmpty else { return (loaded.state, loaded.version) }
            let result = try await repository.store.append(
                try events.map { try TourAggregate.payload(of: $0).newEvent(metadata: metadata) }, to: stream,
                expectedVersion: loaded.version == 0 ? .noStream : .exact(loaded.version))
            // Uploads a tour uses are no longer garbage (the flag is set after the event is durable).
            let attached = events.flatMap { event -> [String] in
                switch event {
                case .stopAdded(let e): e.stop.media.map(\.sha256)
                case .stopChanged(let e): e.stop.media.map(\.sha256)
                case .mediaAttached(let e): [e.media.sha256]
                default: []
                }
            }
            if !attached.isEmpty { try await media.catalog.markReferenced(attached) }
            return (events.reduce(loaded.state, TourAggregate.apply), result.streamVersion)
        } catch EventStoreError.wrongExpectedVersion {
            throw Problem.conflict("The tour was changed at the same time; reload it and retry.", code: "version-conflict")
        }
    }

    func load(_ tourId: UUID) async throws -> (TourState, Int64) {
        let loaded = try await repository.load(TourAggregate.streamID(tourId))
        return (loaded.state, loaded.version)
    }
}
