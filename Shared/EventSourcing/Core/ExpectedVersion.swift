/// The optimistic-concurrency condition of an append.
public enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// Append whatever the stream's current version.
    case any
    /// The stream must not exist yet (version 0).
    case noStream
    /// The stream's current version must be exactly this (0 means no stream).
    case exact(Int64)

    /// Whether a stream at `current` version satisfies this condition.
    public func isSatisfied(byCurrent current: Int64) -> Bool {
        switch self {
        case .any: true
        case .noStream: current == 0
        case .exact(let version): current == version
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .noStream: "no stream"
        case .exact(let version): "\(version)"
        }
    }
}
