import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler writing one JSON object per line.
///
/// ```json
/// {"timestamp":"2025-05-01T09:30:00.123Z","level":"info","label":"tour-management","message":"…",
///  "source":"ServiceKit","metadata":{"request_id":"…","trace_id":"…"}}
/// ```
/// Timestamps are RFC 3339 UTC with milliseconds; metadata merges the logger's, the metadata
/// provider's and the call's (call wins); an attached error appears as `metadata.error`.
public struct JSONLogHandler: LogHandler {
    /// Receives each finished line (without the trailing newline).
    public typealias Sink = @Sendable (String) -> Void

    /// The logger's label.
    public let label: String
    /// Minimum level written.
    public var logLevel: Logger.Level
    /// Metadata attached to every line of this logger.
    public var metadata: Logger.Metadata
    /// Metadata computed per line (e.g. from task-locals).
    public var metadataProvider: Logger.MetadataProvider?
    private let sink: Sink

    /// Creates a handler writing to `sink` (standard output by default).
    public init(
        label: String,
        logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        sink: @escaping Sink = JSONLogHandler.standardOutput
    ) {
        self.label = label
        self.logLevel = logLevel
        self.metadata = [:]
        self.metadataProvider = metadataProvider
        self.sink = sink
    }

    /// Reads or writes one metadata value of this logger.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats `event` and hands the line to the sink.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let explicit = event.metadata {
            merged.merge(explicit) { _, new in new }
        }
        if let error = event.error {
            merged["error"] = .string(String(describing: error))
        }
        var line = "{"
        line += "\"timestamp\":" + JSONText.quoted(Date().formatted(ServiceJSON.fractionalTimestamp))
        line += ",\"level\":" + JSONText.quoted(event.level.rawValue)
        line += ",\"label\":" + JSONText.quoted(label)
        line += ",\"message\":" + JSONText.quoted(event.message.description)
        line += ",\"source\":" + JSONText.quoted(event.source)
        if !merged.isEmpty {
            line += ",\"metadata\":" + JSONText.object(merged)
        }
        line += "}"
        sink(line)
    }

    /// Writes the line and a newline to standard output in one `write`, so concurrent lines never interleave.
    public static let standardOutput: Sink = { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // stdout closed or full: drop the line rather than crash the service
                }
            }
        }
    }
}
