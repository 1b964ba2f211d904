import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Carries out `UserErased` in record-trip, durably: destroys the rider's key (every sealed sample, track, route and
/// review of theirs becomes unreadable at once), then deletes each of their trips (`TripDeleted`, reason
/// `account-erased`), so every read model forgets them; then records it. Idempotent: a crash midway only means the next
/// round does it again.
public struct RiderErasureWorker: Service {
    let commands: TripCommands
    let reads: any TripReadStore
    let store: any ErasedUsersStore
    let trips: any ProjectionRunning
    let checkpoints: any CheckpointStore
    let interval: Duration
    let logger: Logger

    /// The worker over the trip commands, the `trips` read model's reads and the erasures still to carry out.
    public init(commands: TripCommands, reads: any TripReadStore, store: any ErasedUsersStore, trips: any ProjectionRunning,
                checkpoints: any CheckpointStore, interval: Duration = .seconds(2), logger: Logger) {
        self.commands = commands
        self.reads = reads
        self.store = store
        self.trips = trips
        self.checkpoints = checkpoints
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("rider erasure", every: interval, after: [trips], logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Erases every rider marked erased and not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pending()
        for rider in pending {
            try await commands.seal.erase(rider)
            try await waitForTripsReadModel()
            for row in try await reads.all(rider: rider) {
                do {
                    try await commands.delete(trip: row.tripId, rider: rider, reason: "account-erased",
                                              metadata: EventMetadata(actorID: "system:erasure"))
                } catch TripError.notFound {
                    continue
                }
            }
            try await store.markApplied(rider)
            logger.notice("erased rider's trips removed", metadata: ["rider": "\(rider)"])
        }
        return pending.count
    }

    /// A trip started just before the erasure must be in the read model before its rider's trips are listed.
    private func waitForTripsReadModel() async throws {
        let head = try await commands.repository.store.headPosition()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while try await checkpoints.position(of: SQLiteTripsProjection().checkpointName) < head {
            guard ContinuousClock.now < deadline else { throw TripsReadModelBehind(head: head) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The `trips` read model did not reach the log's head in time; the erasure is retried next round.
struct TripsReadModelBehind: Error, CustomStringConvertible {
    var head: Int64
    var description: String { "the trips read model did not reach position \(head) in time" }
}

/// Fills in the weather of finished trips the provider did not answer for at finish (DESIGN: a provider that is down
/// never fails the request; the field is filled in later). Each success is a `TripWeatherRecorded` event.
public struct WeatherBackfillWorker: Service {
    let commands: TripCommands
    let reads: any TripReadStore
    let trips: any ProjectionRunning
    let interval: Duration
    let logger: Logger

    /// The worker over the trip commands and the `trips` read model (it waits for it to be live).
    public init(commands: TripCommands, reads: any TripReadStore, trips: any ProjectionRunning, interval: Duration = .seconds(60),
                logger: Logger) {
        self.commands = commands
        self.reads = reads
        self.trips = trips
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("weather backfill", every: interval, immediately: false, after: [trips], logger: logger) {
            _ = try await fillPending()
        }.run()
    }

    /// One round: asks the provider for up to 50 trips; returns how many got their weather.
    @discardableResult
    public func fillPending() async throws -> Int {
        var filled = 0
        for trip in try await reads.weatherPending(limit: 50) where try await commands.fillWeather(trip: trip) {
            filled += 1
        }
        return filled
    }
}
