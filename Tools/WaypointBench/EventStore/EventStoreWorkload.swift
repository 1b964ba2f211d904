import Contracts
import EventSourcing
import Foundation

/// The sizes of one `eventstore` run; the fixed parts (16 writers, 100-event batches, 1,000-event pages) are the
/// definitions the JSON keys are named after.
struct EventStoreWorkload: Sendable, CustomStringConvertible {
    /// Sequential single-event appends of the c1 phase.
    var singleAppends: Int
    /// Concurrent writers of the c16 phase, each appending single events to its own stream.
    var concurrentWriters = 16
    /// Single-event appends per writer in the c16 phase.
    var appendsPerWriter: Int
    /// Events of the batch phase, written as `batchCount` appends of `batchSize` events.
    var batchEvents: Int
    /// Events per append in the batch phase.
    var batchSize = 100
    /// Concurrent writers of the batch phase.
    var batchWriters: Int
    /// Events per `readAll` page.
    var readPageSize = 1_000
    /// Events per projection transaction during the rebuild.
    var projectionBatchSize: Int
    /// Single-event appends the c1 phase spreads over, round robin, each with an exact expected version.
    var singleStreams = 8
    /// How event ids are generated.
    var eventIDs = EventIDKind.random

    /// Appends of the batch phase.
    var batchCount: Int { batchEvents / batchSize }

    /// Events in the log after the three append phases: what read-all and rebuild go over.
    var totalEvents: Int { singleAppends + concurrentWriters * appendsPerWriter + batchCount * batchSize }

    var description: String {
        [
            "c1 \(singleAppends) single appends over \(singleStreams) streams",
            "c\(concurrentWriters) \(concurrentWriters)×\(appendsPerWriter) single appends",
            "batch \(batchCount)×\(batchSize) events at c\(batchWriters)",
            "read-all pages of \(readPageSize)",
            "rebuild in batches of \(projectionBatchSize)",
            "\(eventIDs.rawValue) event ids",
            "log \(totalEvents) events",
        ].joined(separator: "; ")
    }

    /// A fresh event with a small JSON payload (~100 bytes) and correlation metadata, like a service's events.
    func event(_ sequence: Int) -> NewEvent {
        let entry = BenchEntryRecorded(amount: sequence % 1_000, note: "bench entry \(sequence) with a short human note")
        let id = eventIDs == .random ? UUID.v4() : UUID.v7()
        // Encoding a plain struct of an Int and a String cannot fail.
        return try! entry.newEvent(id: id, metadata: EventMetadata(correlationID: .v4(), actorID: "system:bench"))
    }
}
