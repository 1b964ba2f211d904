import EventSourcing
import Foundation
import GRDB
import Messaging
import Synchronization

/// The benchmark's consumer read model: one row per event, plus the end-to-end lag of each event (apply time minus the
/// producer's commit time, same clock) kept in memory.
final class LagRecorder: SQLiteEventHandler, Sendable {
    let name = "bench_lag"
    private let lags = Mutex<[Double]>([])
    private let count = Mutex(0)

    func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS bench_seen (event_id BLOB PRIMARY KEY, stream_id TEXT NOT NULL)")
    }

    func handle(_ event: PublishedEvent, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO bench_seen (event_id, stream_id) VALUES (?, ?)", arguments: [event.eventID, event.streamID])
        let lag = Date().timeIntervalSince(event.recordedAt) * 1_000
        lags.withLock { $0.append(lag) }
        count.withLock { $0 += 1 }
    }

    /// Events applied so far (including ones in a transaction that may still roll back; fine for a benchmark).
    var applied: Int { count.withLock { $0 } }

    /// p50 and p99 of the recorded lags in milliseconds, then resets them.
    func takePercentiles() -> (p50: Double, p99: Double) {
        let sorted = lags.withLock { lags -> [Double] in
            defer { lags.removeAll() }
            return lags.sorted()
        }
        guard !sorted.isEmpty else { return (0, 0) }
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return (percentile(0.50), percentile(0.99))
    }
}
