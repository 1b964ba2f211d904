import Geo

/// The usable fixes of a cleaned track unpacked once into parallel arrays (times, validated positions, altitudes), so
/// that each figure is a tight loop over plain numbers. Fixes without a finite time or a valid position — possible only
/// in a ``CleanedTrack`` built by hand — are left out.
struct TrackPoints {
    private(set) var times: [Double] = []
    private(set) var positions: [Coordinate] = []
    /// Time and altitude of the fixes that have a finite altitude.
    private(set) var altitudeTimes: [Double] = []
    private(set) var altitudes: [Double] = []
    private(set) var first: GPSFix?
    private(set) var last: GPSFix?
    /// South, west, north, east; `nil` without fixes.
    private(set) var boundingBox: [Double]?

    init(_ fixes: [GPSFix]) {
        times.reserveCapacity(fixes.count)
        positions.reserveCapacity(fixes.count)
        var south = 90.0, west = 180.0, north = -90.0, east = -180.0
        for fix in fixes {
            guard fix.time.isFinite, let position = fix.position else { continue }
            if first == nil { first = fix }
            last = fix
            times.append(fix.time)
            positions.append(position)
            south = min(south, fix.latitude)
            north = max(north, fix.latitude)
            west = min(west, fix.longitude)
            east = max(east, fix.longitude)
            if let altitude = fix.altitude, altitude.isFinite {
                altitudeTimes.append(fix.time)
                altitudes.append(altitude)
            }
        }
        if first != nil { boundingBox = [south, west, north, east] }
    }
}
