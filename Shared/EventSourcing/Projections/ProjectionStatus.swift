/// Where a projection stands; readiness reports `failed` as not ready.
public enum ProjectionStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not started yet.
    case starting
    /// Applying stored events, behind the head.
    case catchingUp(position: Int64)
    /// Caught up with the log and waiting for new events.
    case live(position: Int64)
    /// Stopped on an event it could not apply; needs a fix and a restart (or a rebuild).
    case failed(position: Int64, eventPosition: Int64, reason: String)

    /// The position applied so far.
    public var position: Int64 {
        switch self {
        case .starting: 0
        case .catchingUp(let position), .live(let position), .failed(let position, _, _): position
        }
    }

    /// Whether the projection is healthy (not failed).
    public var isHealthy: Bool {
        if case .failed = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .starting: "starting"
        case .catchingUp(let position): "catching up at \(position)"
        case .live(let position): "live at \(position)"
        case let .failed(position, eventPosition, reason): "failed at event \(eventPosition) (applied up to \(position)): \(reason)"
        }
    }
}

/// A projection could not apply an event: the runner stops it and reports this.
public struct ProjectionFailure: Error, Sendable, CustomStringConvertible {
    /// The projection's name.
    public var projection: String
    /// The event that failed.
    public var eventPosition: Int64
    /// Its type.
    public var eventType: String
    /// What went wrong.
    public var reason: String

    public var description: String {
        "projection '\(projection)' cannot apply event \(eventPosition) (\(eventType)): \(reason)"
    }
}
