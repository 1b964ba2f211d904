import Dispatch
import EventSourcing
import GRDB
import Messaging
import Synchronization

/// How ``SQLiteAnalyticsTarget`` applies a batch on two cores: in one transaction, part by part, each part planned on
/// a reader connection while the part before it is written.
///
/// SQLite has one writer, and a batch's plan — reading payloads, hashing stream keys, looking up the stored stream
/// versions and tombstones, folding — is CPU work that does not need it. So a batch is cut into parts of
/// ``SQLiteAnalyticsTarget/partSize`` events and written in **one** transaction (a batch stays atomic, and each page it
/// dirties is written to the WAL once, at its commit: smaller transactions measured far slower); while the writer
/// executes part *k*'s statements, another thread plans part *k + 1* on a reader.
///
/// Why a reader's plan is exact: a reader sees the last commit, and while this transaction holds the write lock nobody
/// else commits, so the reader sees the state this transaction started from; the stream versions the earlier parts of
/// the batch leave (written, but not visible to a reader) are carried over in memory and take precedence. Only part 0
/// is planned before the transaction begins, so inside it the state that plan was made on is checked — the count of
/// erasure tombstones (an erasure applied by the auth consumer in between changes who is anonymised) and this
/// consumer's stored positions (another process applying the same consumer would move them). If either differs, every
/// part is planned inside the transaction instead, from what it sees (the plain sequential way).
extension SQLiteAnalyticsTarget {
    /// Events per part by default: a part's commutative writes are still summed per key, and the first part — the one
    /// planned while nothing is written — is a short wait.
    public static let defaultPartSize = 8_192

    /// A part planned on a reader, with the state it was planned on.
    struct StagedPart: Sendable {
        var batch: AnalyticsBatch.Prepared
        /// The plan, or the part's first unreadable new event (thrown when the part's turn comes).
        var outcome: Result<Plan, EventFailure>
        /// Erasure tombstones in the snapshot the plan was made on.
        var tombstones: Int64
        /// This consumer's stored positions in that snapshot.
        var positions: [String: Int64]
    }

    /// Applies `events` in one transaction, in parts of ``partSize``, each planned while the one before it is written.
    func applyInParts(_ events: [PublishedEvent]) async throws -> Int {
        guard !events.isEmpty else { return 0 }
        let parts = Self.parts(of: events, size: partSize)
        return try await write(parts, first: try await stage(parts[0], carried: [:])).applied
    }

    /// `events` cut into parts of `size`.
    static func parts(of events: [PublishedEvent], size: Int) -> [[PublishedEvent]] {
        let size = max(1, size)
        return stride(from: 0, to: events.count, by: size).map { Array(events[$0..<min($0 + size, events.count)]) }
    }

    /// Writes `parts` in one transaction, `first` being part 0 as staged before it; `plannedAhead` tells whether the parts
    /// were planned ahead (`first` still held) or, in the transaction, one after the other.
    func write(_ parts: [[PublishedEvent]], first: StagedPart) async throws -> (applied: Int, plannedAhead: Bool) {
        let positions = Self.lastPositions(parts.joined())
        let name = name, statements = statements, pool = database.pool
        return try await database.write { db in
            let ahead = try Self.stillHolds(first, consumer: name, db: db, statements: statements)
            var staged = first
            var carried: [String: Int64] = [:]
            var applied = 0
            for index in parts.indices {
                let plan = ahead ? try staged.outcome.get()
                    : try Self.plan(index == 0 ? first.batch : AnalyticsBatch.prepareHere(parts[index]), db: db, statements: statements)
                carried.merge(plan.touched) { $1 }
                let next = ahead && index + 1 < parts.count
                    ? BackgroundStaging(parts[index + 1], carried: carried, consumer: name, pool: pool, statements: statements) : nil
                try Self.execute(plan.writes, positions: index + 1 == parts.count ? positions : [:], consumer: name, db: db,
                                 statements: statements)
                applied += plan.applied
                if let next { staged = try next.wait() }
            }
            return (applied, ahead)
        }
    }

    /// Plans `events` on a reader connection (a snapshot of the last commit), the stream versions in `carried` taking
    /// precedence over the stored ones.
    func stage(_ events: [PublishedEvent], carried: [String: Int64]) async throws -> StagedPart {
        let batch = await AnalyticsBatch.prepare(events)
        let name = name, statements = statements
        return try await database.read { db in try Self.stage(batch, carried: carried, consumer: name, db: db, statements: statements) }
    }

    /// The same on the calling thread, on `db`.
    static func stage(_ batch: AnalyticsBatch.Prepared, carried: [String: Int64], consumer: String, db: Database,
                      statements: AnalyticsStatements) throws -> StagedPart {
        let tombstones = try Int64.fetchOne(db, sql: statements[.tombstoneCount]) ?? 0
        let positions = try storedPositions(consumer: consumer, db: db)
        let outcome: Result<Plan, EventFailure>
        do {
            outcome = .success(try plan(batch, carried: carried, db: db, statements: statements))
        } catch let failure as EventFailure {
            outcome = .failure(failure)
        }
        return StagedPart(batch: batch, outcome: outcome, tombstones: tombstones, positions: positions)
    }

    /// Whether the state `part` was planned on is the state `db` (in the write transaction) shows.
    static func stillHolds(_ part: StagedPart, consumer: String, db: Database, statements: AnalyticsStatements) throws -> Bool {
        try Int64.fetchOne(db, sql: statements[.tombstoneCount]) ?? 0 == part.tombstones
            && storedPositions(consumer: consumer, db: db) == part.positions
    }

    /// This consumer's stored source positions, by source.
    static func storedPositions(consumer name: String, db: Database) throws -> [String: Int64] {
        let prefix = "consumer:\(name):"
        let rows = try Row.fetchAll(db, sql: "SELECT name, position FROM es_projections WHERE substr(name, 1, \(prefix.utf8.count)) = ?",
                                    arguments: [prefix])
        return Dictionary(uniqueKeysWithValues: rows.map { (String(($0[0] as String).dropFirst(prefix.count)), $0[1] as Int64) })
    }
}

/// One part planned on a dispatch thread and a reader connection while the writer works; ``wait()`` blocks the
/// writer's thread (never a task's) until the plan is ready.
final class BackgroundStaging: Sendable {
    private let result = Mutex<Result<SQLiteAnalyticsTarget.StagedPart, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ events: [PublishedEvent], carried: [String: Int64], consumer: String, pool: DatabasePool, statements: AnalyticsStatements) {
        DispatchQueue.global(qos: .userInitiated).async {
            let outcome = Result<SQLiteAnalyticsTarget.StagedPart, any Error> {
                let batch = AnalyticsBatch.prepareHere(events)
                return try pool.read { db in
                    try SQLiteAnalyticsTarget.stage(batch, carried: carried, consumer: consumer, db: db, statements: statements)
                }
            }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }
    }

    /// The staged part (or the error staging it threw).
    func wait() throws -> SQLiteAnalyticsTarget.StagedPart {
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
