import Contracts
import EventSourcing
import Foundation
import Logging
import PathReview

/// Writes the corpus's approved paths and obstacle reports into a path-review log the way the service would: each
/// command (create, publish, claim, approve, then each report in turn) decided by ``PathDraftAggregate`` on the state
/// folded so far, its events appended with the acting user's metadata — one append per path stream (`.noStream`), 16
/// streams at once so the store's group commit batches them, as many users acting at once would be. The read models
/// then catch up as they would after a restart.
struct PathSeeding {
    var corpus: PathsCorpus
    var logger: Logger

    /// Streams appended at once.
    static let concurrency = 16

    struct Counts {
        var events = 0
        var obstacleReports = 0
    }

    func seed(into store: any EventStore) async throws -> Counts {
        let clock = ContinuousClock(), started = clock.now
        let (paths, reports) = (corpus.paths, corpus.reports)
        let append: @Sendable (Int) async throws -> Counts = { index in
            let events = try Self.events(of: paths[index], reports: reports[index])
            _ = try await store.append(events, to: PathDraftAggregate.streamID(paths[index].id), expectedVersion: .noStream)
            return Counts(events: events.count, obstacleReports: reports[index].count)
        }
        let counts = try await withThrowingTaskGroup(of: Counts.self) { group in
            var next = min(Self.concurrency, paths.count)
            for index in 0..<next { group.addTask { try await append(index) } }
            var total = Counts()
            var done = 0
            while let counts = try await group.next() {
                total.events += counts.events
                total.obstacleReports += counts.obstacleReports
                done += 1
                if done % 2_000 == 0 { logger.info("seeded \(done) of \(paths.count) paths (\(total.events) events)") }
                if next < paths.count {
                    let index = next
                    group.addTask { try await append(index) }
                    next += 1
                }
            }
            return total
        }
        logger.info("seeded \(paths.count) approved paths and \(counts.obstacleReports) obstacle reports: \(counts.events) events in \(clock.now - started)")
        return counts
    }

    /// A path's events: its life up to approval, then its reports, each command decided on the state before it.
    static func events(of path: SeededPath, reports: [SeededReport]) throws -> [NewEvent] {
        var state = PathDraftAggregate.initialState
        var events: [NewEvent] = []
        func run(_ command: PathDraftCommand, by actor: UUID) throws {
            let decided = try PathDraftAggregate.decide(command, state)
            state = decided.reduce(state, PathDraftAggregate.apply)
            let metadata = EventMetadata(actorID: actor.uuidString.lowercased())
            events += try decided.map { try PathDraftAggregate.payload(of: $0).newEvent(metadata: metadata) }
        }
        let created = path.createdAt
        try run(.create(draftId: path.id, author: path.author, content: path.content, at: created), by: path.author)
        try run(.submit(author: path.author, at: created.addingTimeInterval(600)), by: path.author)
        try run(.claim(moderator: path.moderator, at: created.addingTimeInterval(1_800), duration: 1_800), by: path.moderator)
        try run(.decide(moderator: path.moderator, outcome: .approve, note: nil, at: created.addingTimeInterval(2_400)), by: path.moderator)
        for report in reports {
            try run(.reportObstacle(reporter: report.reporter, obstacle: report.obstacle, at: report.at), by: report.reporter)
        }
        return events
    }
}
