import Foundation
import Geo

/// Distance, moving time and max speed of a track, from the steps between consecutive fixes.
struct TrackMotion {
    private(set) var distanceM = 0.0
    private(set) var movingS = 0.0
    private(set) var maxSpeedMps = 0.0

    /// The motion of `track` (in time order).
    init(_ track: TrackPoints, rules: StatisticsRules) {
        let (times, positions) = (track.times, track.positions)
        for index in positions.indices.dropFirst() {
            let metres = positions[index - 1].distance(to: positions[index])
            let seconds = times[index] - times[index - 1]
            distanceM += metres
            if seconds > 0, metres / seconds > rules.stoppedSpeedMps { movingS += seconds }
        }
        let speeds = Self.windowSpeeds(times: times, positions: positions, window: rules.maxSpeedWindowS)
        maxSpeedMps = Self.highestRollingMedian(speeds, count: rules.maxSpeedWindows)
    }

    /// For each fix, the straight-line speed to the first fix at least `window` seconds later (one chord from the first
    /// to the last fix when the track is shorter): position noise of σ metres adds only about σ√2 ÷ window to it.
    ///
    /// A chord spans a few hundred metres, so it is measured on the local equirectangular plane (Δlatitude, Δlongitude ×
    /// cos latitude, on Earth's mean radius): within 10⁻⁶ of the great-circle length at that size, at a third of the
    /// cost of a haversine — the chords are half of the statistics' work.
    static func windowSpeeds(times: [Double], positions: [Coordinate], window: Double) -> [Double] {
        var speeds: [Double] = []
        speeds.reserveCapacity(times.count)
        var later = 0
        for index in times.indices {
            later = max(later, index + 1)
            while later < times.count, times[later] - times[index] < window { later += 1 }
            guard later < times.count else { break }
            speeds.append(chordMetres(positions[index], positions[later]) / (times[later] - times[index]))
        }
        if speeds.isEmpty, let first = times.first, let last = times.last, last > first {
            speeds.append(positions[0].distance(to: positions[positions.count - 1]) / (last - first))
        }
        return speeds
    }

    /// The planar length of a short chord, metres; the great-circle distance when the ends are more than 0.05° apart.
    static func chordMetres(_ a: Coordinate, _ b: Coordinate) -> Double {
        let dLatitude = b.latitude - a.latitude, dLongitude = b.longitude - a.longitude
        guard abs(dLatitude) < 0.05, abs(dLongitude) < 0.05 else { return a.distance(to: b) }
        let radiansPerDegree = Double.pi / 180
        let x = dLongitude * cos((a.latitude + b.latitude) * 0.5 * radiansPerDegree)
        return Earth.meanRadius * radiansPerDegree * (x * x + dLatitude * dLatitude).squareRoot()
    }

    /// The largest median of `count` consecutive values (the median of all when there are fewer).
    static func highestRollingMedian(_ values: [Double], count: Int) -> Double {
        guard !values.isEmpty else { return 0 }
        let width = max(1, min(count, values.count))
        var best = 0.0
        var scratch = [Double](repeating: 0, count: width)
        for start in 0...(values.count - width) {
            // The median is at most the window's largest value: no need to sort a window that cannot beat the best.
            guard values[start..<(start + width)].contains(where: { $0 > best }) else { continue }
            for offset in 0..<width { scratch[offset] = values[start + offset] }
            scratch.sort()
            let median = width % 2 == 1 ? scratch[width / 2] : (scratch[width / 2 - 1] + scratch[width / 2]) / 2
            best = max(best, median)
        }
        return best
    }
}
