import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

extension ErasedUsersTables {
    /// navigation's: `erased_travellers` (the `waypoint.auth` consumer) and `traveller_erasures_applied`.
    public static let erasedTravellers = ErasedUsersTables(erased: "erased_travellers", applied: "traveller_erasures_applied")
}

/// What one feature of navigation does when a traveller is erased, after their key was destroyed (places: append
/// `PlacesErased`). A step must be idempotent: a crash midway means the next round runs every step again.
public struct TravellerErasureStep: Sendable {
    /// For logs.
    public let name: String
    /// Read models the step needs live before it runs (the worker waits for them once).
    public let readModels: [any ProjectionRunning]
    let run: @Sendable (UUID) async throws -> Void

    public init(_ name: String, waitingFor readModels: [any ProjectionRunning] = [], _ run: @escaping @Sendable (UUID) async throws -> Void) {
        self.name = name
        self.readModels = readModels
        self.run = run
    }
}

/// Carries out `UserErased` (remembered by the `waypoint.auth` consumer in `erased_travellers`) in navigation, durably:
/// destroys the traveller's key — everything of theirs sealed in the log, snapshots and read models becomes unreadable
/// at once, and nothing new can be sealed for them — then runs each feature's ``TravellerErasureStep`` in order, then
/// records the erasure. Features that come later add their step in the composition root.
public struct TravellerErasureWorker: Service {
    let store: any ErasedUsersStore
    let seal: SubjectSeal
    let steps: [TravellerErasureStep]
    let interval: Duration
    let logger: Logger

    /// The worker over the erasures still to carry out, the service's key store and the features' steps.
    public init(store: any ErasedUsersStore, keys: any PersonalDataKeyStore, steps: [TravellerErasureStep], interval: Duration = .seconds(2),
                logger: Logger) {
        self.store = store
        self.seal = SubjectSeal(keys: keys)
        self.steps = steps
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("traveller erasure", every: interval, after: steps.flatMap(\.readModels), logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Erases every traveller marked erased and not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pending()
        for traveller in pending {
            try await seal.erase(traveller)
            for step in steps {
                try await step.run(traveller)
            }
            try await store.markApplied(traveller)
            logger.notice("erased traveller's key destroyed and data forgotten",
                          metadata: ["traveller": "\(traveller)", "steps": "\(steps.map(\.name).joined(separator: ","))"])
        }
        return pending.count
    }
}
