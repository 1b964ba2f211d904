import EventSourcing
import TourManagement

extension TourCorpus {
    /// Concurrent writers of ``seed(into:)``: one stream per tour means one event per append, and 16 callers let the
    /// store's group commit put many appends into each transaction.
    static let seedingWriters = 16

    /// Appends every tour of the corpus as its `TourPublished` event to the tour's own stream (`.noStream`), as
    /// tour-management's log holds a published tour. Read models are not touched: whoever reads them projects the log
    /// (the benchmark in process, or the service when it starts).
    func seed(into store: AnyEventStore) async throws {
        let events = self.events
        let writers = Self.seedingWriters
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in stride(from: writer, to: events.count, by: writers) {
                        let event = events[index]
                        _ = try await store.append(try event.newEvent(), to: TourAggregate.streamID(event.tourId), expectedVersion: .noStream)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
