#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import RoadNetwork

/// A simulated ride along a session's route (the bench's copy of the idea of the navigation tests' `RideAlongRoute`,
/// which lives in a test target): a position every `spacing` metres along the route's geometry, with the course of the
/// line there, optionally pushed `sideways` metres to the right of it — ground truth known by construction. Used by
/// `waypoint-bench navigation` and by the gateway benchmark's bike mix.
struct RideAlong: Sendable {
    /// One simulated fix: where, heading where, how far along the route (metres from its start, on the geometry).
    struct Fix: Sendable, Hashable {
        var latitude: Double
        var longitude: Double
        /// Degrees clockwise from north, 0..<360.
        var course: Double
        var along: Double
    }

    /// `[lat, lng]` pairs of the route, as a session stores them.
    let points: [[Double]]

    /// Fixes every `spacing` metres from `from` to `to` (the route's end by default), pushed `sideways` metres to the
    /// right of the direction of travel.
    func fixes(spacing: Double, from: Double = 0, to: Double = .infinity, sideways: Double = 0) -> [Fix] {
        var fixes: [Fix] = []
        var travelled = 0.0, next = from
        for (a, b) in zip(points, points.dropFirst()) where a.count == 2 && b.count == 2 {
            let length = Self.metres(a, b)
            let bearing = Self.bearing(a, b)
            while next <= travelled + length, next <= to {
                let t = length > 0 ? (next - travelled) / length : 0
                var latitude = a[0] + t * (b[0] - a[0]), longitude = a[1] + t * (b[1] - a[1])
                if sideways != 0 {
                    let side = (bearing + 90) * .pi / 180
                    latitude += sideways * cos(side) / Self.metresPerDegree
                    longitude += sideways * sin(side) / (Self.metresPerDegree * cos(latitude * .pi / 180))
                }
                fixes.append(Fix(latitude: latitude, longitude: longitude, course: bearing, along: next))
                next += spacing
            }
            travelled += length
        }
        return fixes
    }

    /// The fix `along` metres from the route's start (at its end beyond its length); `nil` for a route of fewer than
    /// two points.
    func fix(at along: Double) -> Fix? {
        let at = min(max(0, along), length)
        return fixes(spacing: .infinity, from: at, to: at).first
    }

    /// The route's length on its geometry.
    var length: Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + Self.metres($1.0, $1.1) }
    }

    static let metresPerDegree = 111_319.49

    /// Great-circle metres between two `[lat, lng]` points.
    static func metres(_ a: [Double], _ b: [Double]) -> Double {
        RoadPoint(latitude: a[0], longitude: a[1]).metres(to: RoadPoint(latitude: b[0], longitude: b[1]))
    }

    /// Initial bearing from `a` to `b`, degrees 0..<360.
    static func bearing(_ a: [Double], _ b: [Double]) -> Double {
        let φ1 = a[0] * .pi / 180, φ2 = b[0] * .pi / 180, Δλ = (b[1] - a[1]) * .pi / 180
        let y = sin(Δλ) * cos(φ2), x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : (degrees >= 360 ? degrees - 360 : degrees)
    }

    /// The body of `POST …/positions` with one fix: `{"fixes":[{"lat","lng","accuracy","speed","course","time"}]}`.
    static func body(_ fix: Fix, speed: Double, accuracy: Double = 5, time: Date) -> String {
        let course = (fix.course * 10).rounded() / 10
        let stamp = timestamp(time)
        return #"{"fixes":[{"lat":\#(fix.latitude),"lng":\#(fix.longitude),"accuracy":\#(accuracy),"speed":\#(speed),"course":\#(course >= 360 ? 0 : course),"time":"\#(stamp)"}]}"#
    }

    /// RFC 3339 UTC with milliseconds (what phones send), e.g. `2027-01-15T08:00:00.000Z` — written by hand: the
    /// sessions phase formats 150,000 of them, and a formatter per call is slow while a shared one is not `Sendable`.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
        var seconds = time_t(milliseconds / 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = Int(milliseconds % 1_000)
        let millis = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}
