import Foundation

/// Typed failures of an event store; services map them to HTTP problems (409 for the first two).
public enum EventStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream's version did not match the expected version.
    case wrongExpectedVersion(streamID: String, expected: ExpectedVersion, actual: Int64)
    /// An event id is already stored with different content, in another place, or the retry differs from the original append.
    case duplicateEventID(UUID, streamID: String)
    /// The append itself is malformed (no events, empty stream id, repeated ids within it).
    case invalidAppend(String)
    /// The store's schema is newer than this code understands.
    case incompatibleSchema(String)

    public var description: String {
        switch self {
        case let .wrongExpectedVersion(stream, expected, actual):
            "stream '\(stream)' is at version \(actual), expected \(expected)"
        case let .duplicateEventID(id, stream):
            "event \(id) was already appended with different content or position (stream '\(stream)')"
        case let .invalidAppend(reason):
            "invalid append: \(reason)"
        case let .incompatibleSchema(reason):
            "incompatible event store schema: \(reason)"
        }
    }
}
