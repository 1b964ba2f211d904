import Foundation
import GRDB

/// A service's SQLite database file: the event log, projections, checkpoints and keys share it.
///
/// WAL mode through a `DatabasePool` (concurrent readers, one writer) with `synchronous = FULL`, so a commit that
/// returned survives a crash and a power loss. Several processes may open the same file: writers take the write
/// lock up front (`BEGIN IMMEDIATE`) and wait up to `busyTimeout` for it.
public final class SQLiteServiceDatabase: Sendable {
    /// The GRDB pool; projections use it for their own tables.
    public let pool: DatabasePool
    /// Path of the database file.
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Parameter busyTimeout: how long a writer waits for another process's write lock, in seconds.
    public init(path: String, busyTimeout: TimeInterval = 10) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = URL(fileURLWithPath: path).lastPathComponent
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.pool = try DatabasePool(path: path, configuration: configuration)
        self.path = path
        // GRDB sets `synchronous = NORMAL` when it switches the pool to WAL, after `prepareDatabase` ran; NORMAL
        // survives a process crash but may lose the last commits on power loss. Only the writer connection commits,
        // and it lives as long as the pool, so setting FULL on it here makes every acknowledged append durable.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// Runs `updates` in one `BEGIN IMMEDIATE` transaction on the writer.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in try Self.immediateTransaction(db, updates) }
    }

    /// `updates` in one `BEGIN IMMEDIATE` transaction on `db`, committed when it returns.
    static func immediateTransaction<T>(_ db: Database, _ updates: (Database) throws -> T) throws -> T {
        try transaction(db, begin: "BEGIN IMMEDIATE TRANSACTION", updates)
    }

    /// `body` in one transaction on `db`, begun by `begin` and committed when it returns, rolled back when it throws
    /// (or when SQLite ended the transaction itself, as it does on some errors: then nothing is committed and the
    /// caller gets an error, as with GRDB's `inTransaction`).
    ///
    /// Unlike GRDB's `inTransaction`, whose `BEGIN` and `COMMIT` are compiled anew each time (SQLite's parser and GRDB's
    /// statement authorizer: ~25 µs each here), the three statements are the connection's cached ones — every read and
    /// write of every service goes through here. One thing `inTransaction` did that this does not: refuse statements
    /// after SQLite ended the transaction on its own (a full disk, an I/O error), which would otherwise run in autocommit
    /// mode. So a body must let a database error end it, never swallow one and write on — every body here rethrows.
    static func transaction<T>(_ db: Database, begin: String, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: begin).execute()
        do {
            let result = try body(db)
            guard db.isInsideTransaction else {
                throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted")
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
    }

    /// Runs `updates` in one `BEGIN IMMEDIATE` transaction committed with `synchronous = NORMAL`: the commit survives a
    /// process crash but not necessarily a power loss. Only for rows derived from this database's own log (read models
    /// and their checkpoints): WAL frames are recovered in order, so a power loss rewinds such a write together with
    /// everything after it, never the events it was derived from (those were committed with FULL before any reader saw
    /// them), and the projection re-applies them from its rewound checkpoint. It saves the writer one `fsync` per batch.
    /// Never for events, for anything acknowledged to a caller, or for positions in another service's feed.
    public func writeDerived<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            // `synchronous` may only change outside a transaction; the writer is exclusive for this whole closure.
            try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute()
            let result: T
            do {
                result = try Self.immediateTransaction(db, updates)
            } catch {
                try db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute()
                throw error
            }
            try db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute()
            return result
        }
    }

    /// The writer connection's `synchronous` setting (2 = FULL), for tests and diagnostics.
    public func writerSynchronousLevel() throws -> Int {
        try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Runs `reads` on a reader connection (a consistent snapshot), on the caller's thread.
    ///
    /// GRDB's asynchronous read hands the closure to two dispatch queues (one to take a reader from the pool, one for
    /// the reader's own queue) and the result back to the caller's executor: three thread wake-ups for a read that
    /// takes tens of microseconds, which under load cost more CPU than the read itself (issue 22: a position update
    /// paid ~45 context switches in navigation). The synchronous read takes a free reader and runs the closure on the
    /// calling thread (`DispatchQueue.sync` on an idle queue runs in place), so a read costs no hop. It blocks the
    /// caller for the read's length, like any CPU work it does — every read here is bounded (a page, a stream, a
    /// row) and WAL readers never wait for the writer. When every reader of the pool is in use (GRDB's default, 5)
    /// the caller waits for one.
    ///
    /// The snapshot is a `BEGIN DEFERRED` transaction of cached statements (``transaction(_:begin:_:)``) on the
    /// reader, taken with GRDB's `unsafeRead` (no transaction of its own): GRDB's `read` compiles its `BEGIN` and
    /// `COMMIT` for every read. Reader connections are opened read-only, so nothing here can write.
    public func read<T: Sendable>(_ reads: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try readInPlace(reads)
    }

    private func readInPlace<T>(_ reads: (Database) throws -> T) throws -> T {
        try pool.unsafeRead { db in try Self.transaction(db, begin: "BEGIN DEFERRED TRANSACTION", reads) }
    }
}
