/// One position fix as the phone's location service reported it. Times are seconds since 1970-01-01T00:00:00Z (UTC),
/// with sub-second precision; distances in metres, speeds in m/s, angles in degrees.
///
/// A fix is what the rider uploaded, unchanged: nothing here is validated (a NaN, an accuracy of 0 or a time out of
/// order are the cleaner's to judge and count, see ``TrackCleaner``).
public struct GPSFix: Codable, Sendable, Hashable {
    /// Seconds since the Unix epoch, UTC.
    public var time: Double
    /// WGS 84 degrees.
    public var latitude: Double
    /// WGS 84 degrees.
    public var longitude: Double
    /// Metres above the WGS 84 ellipsoid or mean sea level, as the device reported it; `nil` when unknown.
    public var altitude: Double?
    /// Horizontal accuracy (radius of 68 % confidence) in metres; `nil` when unknown.
    public var accuracy: Double?
    /// Ground speed in m/s reported by the device; `nil` when unknown.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north; `nil` when unknown.
    public var course: Double?

    public init(time: Double, latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil,
                speed: Double? = nil, course: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
    }
}
