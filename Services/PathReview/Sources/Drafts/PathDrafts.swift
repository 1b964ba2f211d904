import EventSourcing
import Foundation
import ServiceKit

/// The drafts feature: commands on `path-draft-<id>` streams (load → decide → append at the loaded version, honouring
/// `If-Match`), the draft read from its stream, and "list mine" from the `path_drafts` read model.
public struct PathDrafts: Sendable {
    let repository: AggregateRepository<PathDraftAggregate, AnyEventStore>
    let store: any PathDraftReadStore
    let queue: any ReviewQueueStore
    /// How long a moderator's claim on a queue item lasts.
    let claimDuration: Duration
    let now: @Sendable () -> Date

    /// The feature over the service's log and read stores.
    public init(store eventStore: AnyEventStore, reads: any PathDraftReadStore, queue: any ReviewQueueStore, claimDuration: Duration = .seconds(1_800),
                now: @escaping @Sendable () -> Date = Date.init) {
        repository = AggregateRepository(store: eventStore)
        store = reads
        self.queue = queue
        self.claimDuration = claimDuration
        self.now = now
    }

    /// The author publishes draft `id` into the review queue.
    public func submit(_ id: UUID, author: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.submit(author: author, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `moderator` takes the queue item `id` for ``claimDuration``.
    public func claim(_ id: UUID, moderator: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        let seconds = Double(claimDuration.components.seconds) + Double(claimDuration.components.attoseconds) / 1e18
        return try await execute(.claim(moderator: moderator, at: now(), duration: seconds), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `moderator`, holding the item, decides.
    public func decide(_ id: UUID, moderator: UUID, outcome: ReviewOutcome, note: String?, metadata: EventMetadata) async throws
        -> (PathDraftState, Int64) {
        try await execute(.decide(moderator: moderator, outcome: outcome, note: note, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// A draft in the review queue, as moderators see it; ``ReviewError/notInReview`` otherwise.
    public func reviewItem(_ id: UUID) async throws -> (PathDraftState, Int64) {
        let loaded = try await repository.load(PathDraftAggregate.streamID(id))
        guard !loaded.state.deleted, loaded.state.currentStage == .inReview else { throw ReviewError.notInReview }
        return (loaded.state, loaded.version)
    }

    /// A page of the review queue, oldest first.
    public func queue(area: QueueArea?, after cursor: PageCursor?, limit: Int) async throws -> [ReviewQueueRow] {
        try await queue.page(area: area, after: cursor, limit: limit)
    }

    /// Creates draft `id` for `author`; its state and version.
    public func create(_ id: UUID, author: UUID, content: PathDraftContent, source: PathDraftSource = .manual, metadata: EventMetadata) async throws
        -> (PathDraftState, Int64) {
        try await execute(.create(draftId: id, author: author, content: content, at: now(), source: source), on: id, ifMatch: nil, metadata: metadata)
    }

    /// Replaces the content of the author's draft `id`, at version `ifMatch` when given.
    public func revise(_ id: UUID, author: UUID, content: PathDraftContent, ifMatch: Int64?, metadata: EventMetadata) async throws
        -> (PathDraftState, Int64) {
        try await execute(.revise(author: author, content: content, at: now()), on: id, ifMatch: ifMatch, metadata: metadata)
    }

    /// Deletes the author's draft `id`, at version `ifMatch` when given.
    public func delete(_ id: UUID, author: UUID, ifMatch: Int64?, metadata: EventMetadata) async throws {
        _ = try await execute(.delete(author: author, at: now()), on: id, ifMatch: ifMatch, metadata: metadata)
    }

    /// The author's draft `id` and its version; ``PathDraftError/notFound`` for anyone else.
    public func draft(_ id: UUID, author: UUID) async throws -> (PathDraftState, Int64) {
        let loaded = try await repository.load(PathDraftAggregate.streamID(id))
        guard loaded.state.isOwned(by: author) else { throw PathDraftError.notFound }
        return (loaded.state, loaded.version)
    }

    /// A page of the author's drafts, most recently changed first.
    public func list(author: UUID, after cursor: PageCursor?, limit: Int) async throws -> [PathDraftRow] {
        try await store.page(author: author, after: cursor, limit: limit)
    }

    func execute(_ command: PathDraftCommand, on id: UUID, ifMatch: Int64?, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        let stream = PathDraftAggregate.streamID(id)
        do {
            let loaded = try await repository.load(stream)
            if let ifMatch, ifMatch != loaded.version, loaded.state.draftId != nil {
                throw Problem(status: .preconditionFailed, code: "version-mismatch", title: "Version mismatch",
                              detail: "The draft is at version \(loaded.version), not \(ifMatch); reload it and retry.")
            }
            let events = try PathDraftAggregate.decide(command, loaded.state)
            guard !events.isEmpty else { return (loaded.state, loaded.version) }
            let result = try await repository.store.append(
                try events.map { try PathDraftAggregate.payload(of: $0).newEvent(metadata: metadata) }, to: stream,
                expectedVersion: loaded.version == 0 ? .noStream : .exact(loaded.version))
            return (events.reduce(loaded.state, PathDraftAggregate.apply), result.streamVersion)
        } catch EventStoreError.wrongExpectedVersion {
            throw Problem.conflict("The draft was changed at the same time; reload it and retry.", code: "version-conflict")
        }
    }
}
