import Geo

/// The fixes as the obstacle chain needs them: finite, in time order, one per time, each with a speed (the device's
/// when it reported a usable one, else from the neighbouring positions); speed and position interpolated by time.
struct RideTrack {
    struct Point {
        var time: Double
        var latitude: Double
        var longitude: Double
        var speed: Double
    }

    var points: [Point]
    var maximumGap: Double

    init(fixes: [GPSFix], maximumGap: Double) {
        self.maximumGap = maximumGap
        var usable = fixes.filter { fix in
            fix.time.isFinite && (-90.0...90.0).contains(fix.latitude) && (-180.0...180.0).contains(fix.longitude)
        }
        if !zip(usable, usable.dropFirst()).allSatisfy({ $0.time <= $1.time }) {
            usable.sort { $0.time < $1.time }
        }
        var unique: [GPSFix] = []
        unique.reserveCapacity(usable.count)
        for fix in usable where unique.last?.time != fix.time {
            unique.append(fix)
        }
        points = unique.indices.map { index in
            let fix = unique[index]
            let speed = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? Self.derivedSpeed(unique, at: index)
            return Point(time: fix.time, latitude: fix.latitude, longitude: fix.longitude, speed: speed)
        }
    }

    /// Metres per second between the neighbours of fix `index` (0 for a lone fix).
    static func derivedSpeed(_ fixes: [GPSFix], at index: Int) -> Double {
        let before = fixes[max(0, index - 1)]
        let after = fixes[min(fixes.count - 1, index + 1)]
        guard after.time > before.time else { return 0 }
        return Self.metres(before.latitude, before.longitude, after.latitude, after.longitude) / (after.time - before.time)
    }

    /// Great-circle metres between two positions (Geo's haversine).
    static func metres(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        guard let a = try? Coordinate(latitude: lat1, longitude: lng1),
              let b = try? Coordinate(latitude: lat2, longitude: lng2) else { return .infinity }
        return a.distance(to: b)
    }

    /// The index of the fix at or before `time` whose successor is after it, if `time` lies between two fixes no more
    /// than ``maximumGap`` apart (or exactly on a fix).
    func bracket(_ time: Double, from hint: Int = 0) -> Int? {
        guard let first = points.first, let last = points.last, time >= first.time, time <= last.time else { return nil }
        var index = min(max(hint, 0), points.count - 1)
        if points[index].time > time || (index + 8 < points.count && points[index + 8].time <= time) {
            index = lastIndex(atOrBefore: time)
        }
        while index + 1 < points.count, points[index + 1].time <= time { index += 1 }
        if index + 1 == points.count { return points[index].time == time ? index : nil }
        return points[index + 1].time - points[index].time <= maximumGap ? index : nil
    }

    /// Binary search: the last fix at or before `time` (0 when none is).
    func lastIndex(atOrBefore time: Double) -> Int {
        var low = 0
        var high = points.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if points[middle].time <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Speeds (m/s) at each of `times` (sorted), `nan` where no speed is known: one sweep.
    func speeds(at times: [Double]) -> [Double] {
        var hint = 0
        return times.map { time in
            guard let index = bracket(time, from: hint) else { return .nan }
            hint = index
            guard index + 1 < points.count else { return points[index].speed }
            let a = points[index], b = points[index + 1]
            let fraction = (time - a.time) / (b.time - a.time)
            return a.speed + (b.speed - a.speed) * fraction
        }
    }

    /// The position at `time`, linear between the bracketing fixes; `nil` outside the fixes or across a gap.
    func position(at time: Double) -> (latitude: Double, longitude: Double)? {
        guard let index = bracket(time) else { return nil }
        guard index + 1 < points.count else { return (points[index].latitude, points[index].longitude) }
        let a = points[index], b = points[index + 1]
        let fraction = (time - a.time) / (b.time - a.time)
        return (a.latitude + (b.latitude - a.latitude) * fraction, a.longitude + (b.longitude - a.longitude) * fraction)
    }
}
