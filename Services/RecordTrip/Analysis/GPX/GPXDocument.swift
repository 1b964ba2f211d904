import Foundation

/// What a GPX 1.1 file holds for a ride: its track points (all segments, in order, with the index where each segment
/// starts) and, when the Garmin extensions carried them, accelerometer samples.
public struct GPXDocument: Sendable, Hashable {
    /// `<metadata><name>`, else the first `<trk><name>`.
    public var name: String?
    /// Every `<trkpt>` of every track and segment, in file order (a point without `<time>` has a NaN time).
    public var fixes: [GPSFix]
    /// Index into ``fixes`` where each `<trkseg>` starts (segments without points are not listed).
    public var segmentStarts: [Int]
    /// Garmin `AccelerationExtension` samples, in m/s², timed from their track point.
    public var acceleration: [AccelerationSample]

    /// A document of `fixes` (one segment by default).
    public init(name: String? = nil, fixes: [GPSFix], segmentStarts: [Int] = [0], acceleration: [AccelerationSample] = []) {
        self.name = name
        self.fixes = fixes
        self.segmentStarts = segmentStarts
        self.acceleration = acceleration
    }
}

/// Why a GPX upload was refused; `description` names the line (or byte offset) and what was wrong.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal: ``Kind/tooLarge`` is the one a service answers with 413, every other with 422.
    public enum Kind: String, Sendable, Hashable {
        /// Not well-formed XML (or not XML at all: garbage bytes, a binary file).
        case malformed
        /// The document ends before its root element is closed (a cut-off upload).
        case truncated
        /// Well-formed XML whose root is not `<gpx>`.
        case notGPX
        /// A DOCTYPE, entity declaration or undefined entity: refused so that no XML bomb is ever expanded.
        case forbiddenMarkup
        /// A value that cannot be read: a latitude that is not a number, a time that is not RFC 3339, …
        case invalidValue
        /// Over one of the ``GPXLimits``.
        case tooLarge
    }

    /// What kind of refusal this is.
    public var kind: Kind
    /// 1-based line where the reader stopped, when known.
    public var line: Int?
    /// 0-based byte offset where the reader stopped, when known.
    public var offset: Int?
    /// The whole message: where, then what.
    public var description: String

    /// A refusal of `kind` at `line`/`offset` saying `reason`.
    public init(_ reason: String, kind: Kind = .malformed, line: Int? = nil, offset: Int? = nil) {
        self.kind = kind
        self.line = line
        self.offset = offset
        var place = ""
        if let line { place = "line \(line)" }
        if let offset { place += place.isEmpty ? "byte \(offset)" : " (byte \(offset))" }
        description = place.isEmpty ? "GPX: \(reason)" : "GPX \(place): \(reason)"
    }

    /// Whether the upload was refused for its size (HTTP 413) rather than its content (HTTP 422).
    public var isTooLarge: Bool { kind == .tooLarge }
}

/// The most a GPX import may hold; a file over any of them is a ``GPXError`` of kind ``GPXError/Kind/tooLarge``.
public struct GPXLimits: Sendable, Hashable {
    /// Bytes of the file (5,000,000 Garmin `accel` elements take about 300 MB).
    public var maxBytes: Int = 512 * 1_024 * 1_024
    /// Track points.
    public var maxFixes: Int = 200_000
    /// Accelerometer samples.
    public var maxAccelerationSamples: Int = 5_000_000
    /// Last track-point time − first, seconds (24 h).
    public var maxDurationS: Double = 86_400
    /// Elements open at once: GPX needs 6 or 7, a deeper document is an attack on the reader.
    public var maxDepth: Int = 64

    /// The limits of issue 19.
    public init() {}

    /// The limits the service enforces.
    public static let standard = GPXLimits()
}

/// Reads GPX 1.0/1.1 track points (`<trk>`/`<trkseg>`/`<trkpt>` with `<ele>`, `<time>`, GPX 1.0 `<speed>`/`<course>`),
/// Garmin `TrackPointExtension` v1/v2 speed and course, and Garmin `AccelerationExtension` samples. Routes, waypoints
/// and other extensions are skipped. Safe on any bytes: every refusal is a ``GPXError``.
public enum GPXReader {
    /// The document in `data`, within ``GPXLimits/standard``.
    public static func read(_ data: Data) throws(GPXError) -> GPXDocument {
        try read(data, limits: .standard)
    }

    /// The document in `data`, within `limits`.
    public static func read(_ data: Data, limits: GPXLimits) throws(GPXError) -> GPXDocument {
        guard data.count <= limits.maxBytes else {
            throw GPXError("the file has \(data.count) bytes, more than the \(limits.maxBytes) allowed", kind: .tooLarge)
        }
        var builder = GPXDocumentBuilder(bytes: [UInt8](data), limits: limits)
        return try builder.build()
    }
}
