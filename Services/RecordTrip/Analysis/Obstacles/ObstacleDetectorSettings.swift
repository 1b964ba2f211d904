/// Every constant of the obstacle chain (``ObstacleDetector``), in one documented value type. The defaults are what
/// the tests and `waypoint-bench trips` measure; `docs/record-trip.md` says where each comes from.
public struct ObstacleDetectorSettings: Sendable, Hashable {
    /// Width in seconds of the centred mean of the raw vector that estimates gravity's direction in the phone frame
    /// (Nericell re-orients from gravity too, but only at rest; a rolling mean follows the phone as it moves).
    public var gravityWindow: Double = 1.0
    /// Gravity's direction turning faster than this (degrees per second) means the phone is being handled or moved in
    /// a pocket: no candidates within ``rotationGuardMargin`` of it.
    public var rotationGuardRate: Double = 30
    /// Seconds between the two gravity estimates compared by the rotation guard.
    public var rotationGuardLag: Double = 0.25
    /// Seconds either side of a fast rotation where candidates are suppressed.
    public var rotationGuardMargin: Double = 1.0
    /// High-pass: the vertical acceleration minus its centred mean over this many seconds (removes gravity's magnitude,
    /// the sensor's offset, braking and slopes; keeps shocks of 0.05–0.5 s).
    public var highPassWindow: Double = 1.0
    /// Centred moving average (seconds) after the high-pass: tames sensor noise at 100 Hz (3 samples) and leaves a
    /// 50 Hz or 20 Hz recording as it is, so a 30 ms shock keeps its height (0.05 s lost 10 % recall at 50 Hz).
    public var smoothingWindow: Double = 0.03
    /// Speed gate (m/s): below it nothing is a candidate — a kerb at walking pace, a phone handled at a stop.
    public var minimumSpeed: Double = 2.5
    /// Fixes further apart than this (s) give no speed in between: the gate stays closed.
    public var maximumFixGap: Double = 10
    /// Length in seconds of the blocks whose RMS forms the rolling baseline.
    public var baselineBlock: Double = 0.5
    /// The baseline at a block is the median RMS of this many blocks centred on it (robust to the shock itself).
    public var baselineBlocks: Int = 11
    /// A peak must exceed this many times the baseline …
    public var baselineFactor: Double = 5
    /// … and this many m/s² per m/s of speed (Pothole Patrol's speed-vs-z filter: a given shock means less at speed),
    /// at ``referenceSampleRate``; at other rates it follows the peak the sensor leaves of a short shock
    /// (``scalesThresholdsWithRate``).
    public var thresholdPerSpeed: Double = 1.0
    /// Whether the speed-scaled threshold and the severity's scale follow the sample rate: multiplied by the expected
    /// peak fraction of a ``referenceShockDuration`` half-sine at the ride's median sample interval ÷ at
    /// ``referenceSampleRate`` (a phone averages over its sample interval, so at 20 Hz a 40 ms shock keeps ~57 % of the
    /// height it shows at 100 Hz).
    public var scalesThresholdsWithRate = true
    /// The rate (Hz) the thresholds were set at.
    public var referenceSampleRate: Double = 100
    /// Seconds of the shock the scaling is computed for: a pothole's far-edge rebound lasts 30–50 ms.
    public var referenceShockDuration: Double = 0.04
    /// Samples over the threshold closer than this (s) are one event.
    public var eventGap: Double = 0.3
    /// The first excursion beyond this fraction of the peak gives the event's direction: down first is a pothole.
    public var firstExcursionFraction: Double = 0.12
    /// A block is rough when the RMS of its high-passed (unsmoothed) vertical acceleration exceeds this many m/s² per
    /// m/s of speed …
    public var roughRMSPerSpeed: Double = 0.3
    /// … for at least this many seconds in a row.
    public var roughMinimumDuration: Double = 2.0
    /// Calmer gaps of up to this many seconds inside a rough stretch do not end it.
    public var roughMaximumGap: Double = 1.0
    /// Candidates closer than this in metres or ``mergeTime`` in seconds are one (front and rear wheel, a double hit).
    public var mergeDistance: Double = 5
    public var mergeTime: Double = 1.5
    /// Severity 1 for a shock of this many m/s² per m/s of speed (30 m/s² ≈ 3 g at 18 km/h), at
    /// ``referenceSampleRate``; scaled with the rate like ``thresholdPerSpeed``, so a shock gets the same severity at
    /// every rate.
    public var severeShockPerSpeed: Double = 6
    /// Severity 1 for a rough stretch whose RMS is this many m/s² per m/s of speed.
    public var severeRoughRMSPerSpeed: Double = 1.0

    /// The defaults.
    public init() {}

    /// The defaults the tests and the benchmark measure.
    public static let standard = ObstacleDetectorSettings()
}
