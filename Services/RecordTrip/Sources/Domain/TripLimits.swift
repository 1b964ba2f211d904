import Foundation

/// The documented limits of a trip (issue 19, point 1), enforced on every upload: 413 when a trip would hold more
/// samples than allowed, 422 when it would last longer, and each request body capped by the HTTP body limit.
public struct TripLimits: Sendable, Hashable {
    /// Longest ride, seconds between its earliest and latest fix (24 h).
    public var maximumDurationS: Double = 86_400
    /// Most GPS fixes per trip.
    public var maximumFixes: Int = 200_000
    /// Most accelerometer samples per trip.
    public var maximumAccelerationSamples: Int = 5_000_000
    /// Largest chunk (and preview) body, bytes: 16 MiB — about 250,000 accelerometer samples.
    public var maximumChunkBytes: Int = 16 << 20
    /// Largest GPX import, bytes: 64 MiB.
    public var maximumImportBytes: Int = 64 << 20
    /// Highest chunk sequence number.
    public var maximumSequence: Int = 1_000_000

    /// Creates it.
    public init() {}

    /// The limits above.
    public static let standard = TripLimits()
}
