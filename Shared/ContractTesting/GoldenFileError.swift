/// Why a golden-file check failed. The description is written for the person reading the
/// test log: what was expected, what was produced, and how to proceed.
public enum GoldenFileError: Error, Equatable, CustomStringConvertible {
    /// No directory holding `Package.swift` encloses the calling test file.
    case repositoryRootNotFound(startingAt: String)
    /// The event type cannot name a file (empty, or contains `/`, `\` or a leading `.`).
    case invalidEventType(String)
    /// The golden file does not exist; `actual` is what the producer encodes today.
    case missing(path: String, actual: String)
    /// The golden file differs from what the producer encodes today.
    case mismatch(path: String, expected: String, actual: String, diff: String)
    /// The golden file could not be read or written.
    case fileSystem(path: String, reason: String)
    /// The golden file exists but does not decode as the event type.
    case undecodable(path: String, reason: String)
    /// The golden file matches the encoding but decodes to a different event: the type's
    /// `Codable` implementation does not round-trip.
    case roundTripMismatch(path: String, original: String, decoded: String)

    /// A multi-line explanation with the expected and actual JSON.
    public var description: String {
        switch self {
        case .repositoryRootNotFound(let start):
            return "No directory containing Package.swift encloses \(start); pass an explicit golden directory."
        case .invalidEventType(let eventType):
            return "Event type '\(eventType)' cannot be used as a golden file name."
        case .missing(let path, let actual):
            return """
                Golden file missing: \(path)
                The producer encodes:
                \(actual)
                To pin this contract, run the test once with \(GoldenFileMode.environmentVariable)=1 \
                and commit the file.
                """
        case .mismatch(let path, let expected, let actual, let diff):
            return """
                Golden file mismatch: \(path)
                Diff (- golden file, + producer encodes today):
                \(diff)
                Expected (golden file):
                \(expected)
                Actual (encoded now):
                \(actual)
                If consumers can still read the new shape (only optional fields added), re-record \
                with \(GoldenFileMode.environmentVariable)=1. If not, keep this file, bump \
                schemaVersion, pin the new version in its own file and add an upcaster.
                """
        case .fileSystem(let path, let reason):
            return "Golden file \(path) could not be accessed: \(reason)"
        case .undecodable(let path, let reason):
            return "Golden file \(path) does not decode as its event type: \(reason)"
        case .roundTripMismatch(let path, let original, let decoded):
            return """
                Golden file \(path) matches the encoding, but decoding it gives a different event.
                Encoded:  \(original)
                Decoded:  \(decoded)
                The type's Codable conformance does not round-trip; consumers would read another value.
                """
        }
    }
}
