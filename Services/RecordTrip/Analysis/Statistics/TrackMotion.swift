import Geo

/// Distance, moving time and max speed of a track, from the steps between consecutive fixes.
struct TrackMotion {
    private(set) var distanceM = 0.0
    private(set) var movingS = 0.0
    private(set) var maxSpeedMps = 0.0

    /// `fixes` in time order, each with a valid position.
    init(_ fixes: [GPSFix], rules: StatisticsRules) {
        var times: [Double] = [], positions: [Coordinate] = []
        times.reserveCapacity(fixes.count)
        positions.reserveCapacity(fixes.count)
        for fix in fixes {
            guard let position = fix.position else { continue }
            if let from = positions.last, let time = times.last {
                let metres = from.distance(to: position)
                let seconds = fix.time - time
                distanceM += metres
                if seconds > 0, metres / seconds > rules.stoppedSpeedMps { movingS += seconds }
            }
            times.append(fix.time)
            positions.append(position)
        }
        let speeds = Self.windowSpeeds(times: times, positions: positions, window: rules.maxSpeedWindowS)
        maxSpeedMps = Self.highestRollingMedian(speeds, count: rules.maxSpeedWindows)
    }

    /// For each fix, the straight-line speed to the first fix at least `window` seconds later (one chord from the first
    /// to the last fix when the track is shorter): position noise of σ metres adds only about σ√2 ÷ window to it.
    static func windowSpeeds(times: [Double], positions: [Coordinate], window: Double) -> [Double] {
        var speeds: [Double] = []
        var later = 0
        for index in times.indices {
            later = max(later, index + 1)
            while later < times.count, times[later] - times[index] < window { later += 1 }
            guard later < times.count else { break }
            speeds.append(positions[index].distance(to: positions[later]) / (times[later] - times[index]))
        }
        if speeds.isEmpty, let first = times.first, let last = times.last, last > first {
            speeds.append(positions[0].distance(to: positions[positions.count - 1]) / (last - first))
        }
        return speeds
    }

    /// The largest median of `count` consecutive values (the median of all when there are fewer).
    static func highestRollingMedian(_ values: [Double], count: Int) -> Double {
        guard !values.isEmpty else { return 0 }
        let width = max(1, min(count, values.count))
        var best = 0.0
        var scratch = [Double](repeating: 0, count: width)
        for start in 0...(values.count - width) {
            for offset in 0..<width { scratch[offset] = values[start + offset] }
            scratch.sort()
            let median = width % 2 == 1 ? scratch[width / 2] : (scratch[width / 2 - 1] + scratch[width / 2]) / 2
            best = max(best, median)
        }
        return best
    }
}
