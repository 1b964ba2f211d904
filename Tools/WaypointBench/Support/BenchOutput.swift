import Foundation
import Logging

/// Where a benchmark writes: progress as log lines on stderr, the figures as one JSON object on stdout.
enum BenchOutput {
    /// Routes every logger of the process (including the database drivers') to stderr and returns the progress logger.
    static func progressLogger(label: String) -> Logger {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        return Logger(label: label)
    }

    /// Writes `figures` as a single line of JSON on stdout.
    static func printJSON(_ figures: some Encodable) throws {
        let encoder = JSONEncoder()
        // Sorted keys: the same run prints the same line, whatever the dictionary order.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(figures)
        line.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(line)
    }
}
