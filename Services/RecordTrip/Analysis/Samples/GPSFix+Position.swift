import Geo

extension GPSFix {
    /// The fix's position as a validated ``Coordinate``; `nil` when latitude or longitude is not finite or out of range.
    public var position: Coordinate? {
        try? Coordinate(latitude: latitude, longitude: longitude)
    }
}
