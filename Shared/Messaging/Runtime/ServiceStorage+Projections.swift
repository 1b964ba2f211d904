import EventSourcing
import Logging
import ServiceKit

extension ServiceStorage {
    /// A runner for a read model over this service's own log, on whichever backend is configured: the SQLite
    /// projection when the service runs embedded, the PostgreSQL one in production; it re-reads the log when idle every
    /// ``followerPollInterval``.
    public func projection(sqlite: some SQLiteProjection, postgres: some PostgresProjection,
                           logger: Logger = Logger(label: "waypoint.projection")) -> any ProjectionRunning {
        let store = AnyEventStore(self.store)
        if let database = self.sqlite {
            return ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: database, projection: sqlite),
                                    pollInterval: followerPollInterval, logger: logger)
        }
        return ProjectionRunner(store: store, target: PostgresProjectionTarget(database: self.postgres!, projection: postgres),
                                pollInterval: followerPollInterval, logger: logger)
    }

    /// The notifier of this service's users (``UserNotifier``) over its own log and checkpoints, deciding with `rules`
    /// on the events `triggers` names; it re-reads the log when idle every ``followerPollInterval``, as the projections do.
    public func userNotifier(rules: @escaping UserNotifier.Rules, triggers: UserNotifier.Triggers,
                             logger: Logger = Logger(label: "waypoint.user-notifier")) -> UserNotifier {
        UserNotifier(store: AnyEventStore(store), checkpoints: checkpoints, rules: rules, triggers: triggers, pollInterval: followerPollInterval,
                     logger: logger)
    }
}

extension Readiness {
    /// Makes `/health/ready` answer 503 while `projection` is stopped on an event it cannot apply (DESIGN: a projection
    /// that cannot decode a payload stops loudly, it never skips).
    public func register(_ projection: any ProjectionRunning) {
        register("projection.\(projection.name)") {
            if case .failed(let position, let eventPosition, let reason) = projection.status {
                return .notReady("stopped at position \(position) on event \(eventPosition): \(reason)")
            }
            return .ready
        }
    }
}
