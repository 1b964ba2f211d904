import Foundation

/// What a GPX 1.1 file holds for a ride: its track points (all segments, in order, with the index where each segment
/// starts) and, when the Garmin extensions carried them, accelerometer samples.
public struct GPXDocument: Sendable, Hashable {
    public var name: String?
    public var fixes: [GPSFix]
    /// Index into ``fixes`` where each `<trkseg>` starts.
    public var segmentStarts: [Int]
    public var acceleration: [AccelerationSample]

    public init(name: String? = nil, fixes: [GPSFix], segmentStarts: [Int] = [0], acceleration: [AccelerationSample] = []) {
        self.name = name
        self.fixes = fixes
        self.segmentStarts = segmentStarts
        self.acceleration = acceleration
    }
}

/// Why a GPX upload was refused; `description` names the line (or byte offset) and what was wrong.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

// SKELETON: the session's `trackstats` helper replaces these with the real reader and writer.
public enum GPXReader {
    public static func read(_ data: Data) throws(GPXError) -> GPXDocument {
        throw GPXError("GPX import is not built yet")
    }
}

public enum GPXWriter {
    public static func write(_ document: GPXDocument) -> Data { Data() }
}
