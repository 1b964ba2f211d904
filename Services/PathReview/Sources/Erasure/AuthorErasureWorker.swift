import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

extension ErasedUsersTables {
    /// path-review's: `erased_authors` (the `waypoint.auth` consumer) and `author_erasures_applied`.
    public static let erasedAuthors = ErasedUsersTables(erased: "erased_authors", applied: "author_erasures_applied")
}

/// Carries out `UserErased` in path-review, durably: every draft of the erased author gets `PathDraftAuthorErased` —
/// drafts not on the network (new, sent back, in review, rejected) go with their author (out of the queue and every
/// list); approved paths stay on the network with no author — then the erasure is recorded. Idempotent: the command
/// is a no-op on a draft that is no longer theirs, so a crash midway only means the next round does the rest.
///
/// Left in the log: the author's id in the events written before (`PathDraftCreated`, `PathDraftSubmitted`), and the ids of
/// reports they made on others' paths — an id that auth no longer resolves to anyone; no name was ever stored here.
public struct AuthorErasureWorker: Service {
    let drafts: PathDrafts
    let store: any ErasedUsersStore
    let draftList: any ProjectionRunning
    let checkpoints: any CheckpointStore
    let interval: Duration
    let logger: Logger

    /// The worker over the drafts feature, the erasures still to carry out and the `path_drafts` read model (which
    /// lists an author's drafts).
    public init(drafts: PathDrafts, store: any ErasedUsersStore, draftList: any ProjectionRunning, checkpoints: any CheckpointStore,
                interval: Duration = .seconds(2), logger: Logger) {
        self.drafts = drafts
        self.store = store
        self.draftList = draftList
        self.checkpoints = checkpoints
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("author erasure", every: interval, after: [draftList], logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Erases every author marked erased and not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pending()
        for author in pending {
            try await waitForDraftList()
            var cursor: PageCursor?
            var erased = 0
            while true {
                let rows = try await drafts.list(author: author, after: cursor, limit: 100)
                for row in rows {
                    _ = try await drafts.execute(.eraseAuthor(author: author, at: drafts.now()), on: row.draftId, ifMatch: nil,
                                                 metadata: EventMetadata(actorID: "system:erasure"))
                    erased += 1
                }
                guard rows.count == 100, let last = rows.last else { break }
                cursor = PageCursor(key: last.sortKey, id: last.draftId)
            }
            try await store.markApplied(author)
            logger.notice("erased author's drafts withdrawn or unlinked", metadata: ["author": "\(author)", "drafts": "\(erased)"])
        }
        return pending.count
    }

    /// A draft created just before the erasure must be in the read model before its author's drafts are listed.
    private func waitForDraftList() async throws {
        let head = try await drafts.repository.store.headPosition()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while try await checkpoints.position(of: SQLitePathDraftsProjection().checkpointName) < head {
            guard ContinuousClock.now < deadline else { throw DraftListBehind(head: head) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The `path_drafts` read model did not reach the log's head in time; the erasure is retried next round.
struct DraftListBehind: Error, CustomStringConvertible {
    var head: Int64
    var description: String { "the path_drafts read model did not reach position \(head) in time" }
}
