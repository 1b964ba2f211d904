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
    /// `nil`: ``output``, written as bytes.
    private let sink: Sink?
    /// Where lines go without a sink (standard output in services): buffered, warnings and worse written at once.
    private let output: LogOutput

    /// Creates a handler writing to `sink`, or to `output` when `nil`.
    public init(
        label: String,
        logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        sink: Sink? = nil,
        output: LogOutput = .standardOutput
    ) {
        self.label = label
        self.logLevel = logLevel
        self.metadata = [:]
        self.metadataProvider = metadataProvider
        self.sink = sink
        self.output = output
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
        var line: [UInt8] = []
        line.reserveCapacity(512)
        line.append(contentsOf: #"{"timestamp":"#.utf8)
        JSONText.appendTimestamp(to: &line)
        line.append(contentsOf: #","level":"#.utf8)
        JSONText.appendQuoted(event.level.rawValue, to: &line)
        line.append(contentsOf: #","label":"#.utf8)
        JSONText.appendQuoted(label, to: &line)
        line.append(contentsOf: #","message":"#.utf8)
        JSONText.appendQuoted(event.message.description, to: &line)
        line.append(contentsOf: #","source":"#.utf8)
        JSONText.appendQuoted(event.source, to: &line)
        if !merged.isEmpty {
            line.append(contentsOf: #","metadata":"#.utf8)
            JSONText.appendObject(merged, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        if let sink {
            sink(String(decoding: line, as: UTF8.self))
        } else {
            line.append(UInt8(ascii: "\n"))
            output.write(line, urgent: event.level >= .warning)
        }
    }
}
