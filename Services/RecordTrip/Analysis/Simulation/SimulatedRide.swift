/// What the ride simulator (``RideSimulator``) produces: the phone's recording and the ground truth behind it.
/// Test and benchmark support.
public struct SimulatedRide: Sendable {
    /// The fixes as the phone's location service would report them (position noise, speed noise).
    public var fixes: [GPSFix]
    /// The accelerometer samples in the phone's frame, gravity included.
    public var acceleration: [AccelerationSample]
    /// The obstacles injected, in time order.
    public var obstacles: [SimulatedObstacle]
    /// The confounders that happened, in time order (none of them is an obstacle).
    public var confounders: [SimulatedConfounder]
    /// Metres ridden.
    public var distance: Double
    /// Metres ridden outside rough stretches.
    public var smoothDistance: Double
}

/// One injected obstacle with the time the detector should find it at.
public struct SimulatedObstacle: Sendable, Hashable {
    public var kind: ObstacleCandidate.Kind
    /// The first wheel's impact (pothole, bump) or the middle of the stretch (rough surface), seconds.
    public var time: Double
    /// Where the signature begins and ends, seconds (a rough stretch's whole length).
    public var start: Double
    public var end: Double
    /// True position at `time`.
    public var latitude: Double
    public var longitude: Double
    /// m/s at `time`.
    public var speed: Double
}

/// Things a ride does that are not obstacles and must not become candidates.
public enum RideConfounder: String, Sendable, Hashable, CaseIterable {
    /// Hard braking to a stop and hard accelerating away (otherwise stops are gentle).
    case braking
    /// A kerb taken at walking pace after a stop.
    case kerb
    /// The phone taken out and handled at a stop: large rotations and shakes at ~0 speed.
    case handling
    /// The phone shifting in its pocket or mount while riding (a rotation of 15–60° over about a second).
    case phoneShift
}

/// One confounder as it happened.
public struct SimulatedConfounder: Sendable, Hashable {
    public var kind: RideConfounder
    /// When it began, seconds.
    public var time: Double
}
