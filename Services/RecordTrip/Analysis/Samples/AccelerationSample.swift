/// One accelerometer reading in the phone's own frame (any orientation), in m/s², gravity included, as iOS's
/// `CMAccelerometerData` × 9.81 or Android's `TYPE_ACCELEROMETER` report it. 20–100 Hz during a ride.
public struct AccelerationSample: Codable, Sendable, Hashable {
    /// Seconds since the Unix epoch, UTC (the same clock as ``GPSFix/time``).
    public var time: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(time: Double, x: Double, y: Double, z: Double) {
        self.time = time
        self.x = x
        self.y = y
        self.z = z
    }
}
