/// A synthetic bicycle ride with known truth, for the obstacle detector's tests and `waypoint-bench trips`: a speed
/// profile with stops, a phone in a random and occasionally changing orientation, road vibration scaled by speed and
/// surface, pothole and bump signatures and rough stretches at known places, and the confounders of
/// ``RideConfounder``. Every random draw comes from one ``SeededRandom``, so a seed is a ride.
/// `docs/record-trip.md` gives the numbers and where they come from.
public enum RideSimulator {
    /// What kind of ride to make.
    public struct Settings: Sendable, Hashable {
        /// The seed of every random draw: a seed is a ride.
        public var seed: UInt64
        /// Seconds of riding, stops included.
        public var duration: Double = 1_800
        /// Accelerometer rate, Hz (phones record 20–100 Hz).
        public var sampleRate: Double = 100
        /// The rate (Hz) the accelerometer itself runs at when the phone delivers a thinned stream (every n-th sample of
        /// a faster sensor: each sample is the sensor's own interval mean at that instant, and a shock between two
        /// samples can be missed); `nil`, the default: the sensor runs at ``sampleRate`` and each sample is the mean over
        /// its own interval (the decimation filter of an accelerometer set to that output rate), as is a `sensorRate` at
        /// or below ``sampleRate``. Changes no random draw: the same seed is the same ride under either model.
        public var sensorRate: Double?
        /// Seconds between fixes.
        public var fixInterval: Double = 1
        /// Start time, seconds since the Unix epoch, and start position (Krems an der Donau).
        public var startTime: Double = 1_790_000_000
        public var startLatitude: Double = 48.41
        public var startLongitude: Double = 15.60
        /// Cruising speeds drawn from this range, m/s (11–29 km/h).
        public var cruiseSpeed: ClosedRange<Double> = 3.0...8.0
        /// Seconds of riding between stops.
        public var stopEvery: ClosedRange<Double> = 120...420
        /// Injected obstacles per km of riding.
        public var potholesPerKm: Double = 1.0
        public var bumpsPerKm: Double = 0.5
        public var roughStretchesPerKm: Double = 0.2
        /// RMS vertical road vibration on smooth asphalt at 5 m/s, m/s² (scales with speed; rough surface ×4–7).
        public var smoothVibration: Double = 0.6
        /// Phone shifts per hour of riding (when ``RideConfounder/phoneShift`` is on).
        public var phoneShiftsPerHour: Double = 6
        /// The confounders the ride contains.
        public var confounders: Set<RideConfounder> = Set(RideConfounder.allCases)

        /// A ride of the given seed with the defaults.
        public init(seed: UInt64) {
            self.seed = seed
        }

        /// The same ride with no obstacles at all: smooth road and confounders only.
        public func withoutObstacles() -> Settings {
            var copy = self
            (copy.potholesPerKm, copy.bumpsPerKm, copy.roughStretchesPerKm) = (0, 0, 0)
            return copy
        }
    }

    /// The ride for `settings`.
    public static func simulate(_ settings: Settings) -> SimulatedRide {
        var random = SeededRandom(seed: settings.seed)
        var script = RideScript(settings: settings)
        script.plan(using: &random)
        let acceleration = script.sensorSamples(using: &random)
        let fixes = script.fixes(using: &random)
        return SimulatedRide(fixes: fixes, acceleration: acceleration, obstacles: script.obstacles,
                             confounders: script.confounders, distance: script.distance.last ?? 0,
                             smoothDistance: script.smoothDistance)
    }
}
