import Foundation

/// What ``GoldenFile/verify(_:in:mode:)`` does with the golden file on disk.
public enum GoldenFileMode: Sendable, Equatable {
    /// Compare the encoded event with the file; a missing or different file is an error.
    case verify
    /// Write the encoded event to the file, creating or overwriting it.
    case record

    /// The name of the environment variable that switches every golden-file test to
    /// ``record`` when set to `1`: `WAYPOINT_RECORD_GOLDEN=1 swift test`.
    public static let environmentVariable = "WAYPOINT_RECORD_GOLDEN"

    /// ``record`` when `WAYPOINT_RECORD_GOLDEN=1`, otherwise ``verify``.
    public static var fromEnvironment: GoldenFileMode {
        ProcessInfo.processInfo.environment[environmentVariable] == "1" ? .record : .verify
    }
}
