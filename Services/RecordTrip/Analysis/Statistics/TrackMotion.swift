import Geo

/// Distance, moving time and max speed of a track, from the steps between consecutive fixes.
struct TrackMotion {
    private(set) var distanceM = 0.0
    private(set) var movingS = 0.0
    private(set) var maxSpeedMps = 0.0

    /// `fixes` in time order, each with a valid position.
    init(_ fixes: [GPSFix], rules: StatisticsRules) {
        var speeds: [Double] = []
        speeds.reserveCapacity(fixes.count)
        var previous: (time: Double, position: Coordinate)?
        for fix in fixes {
            guard let position = fix.position else { continue }
            defer { previous = (fix.time, position) }
            guard let from = previous else { continue }
            let metres = from.position.distance(to: position)
            let seconds = fix.time - from.time
            distanceM += metres
            if seconds > 0 {
                let speed = metres / seconds
                speeds.append(speed)
                if speed > rules.stoppedSpeedMps { movingS += seconds }
            }
        }
        maxSpeedMps = Self.highestRollingMedian(speeds, window: rules.maxSpeedSteps)
    }

    /// The largest median of `window` consecutive values (the median of all when there are fewer).
    static func highestRollingMedian(_ values: [Double], window: Int) -> Double {
        guard !values.isEmpty else { return 0 }
        let width = max(1, min(window, values.count))
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

/// Elevation gain and loss from a sequence of altitudes.
enum ElevationProfile {
    /// gpxpy's smoothing (each inner altitude becomes 0.3 × previous + 0.4 × itself + 0.3 × next), then gain and loss
    /// between turning points: a climb or descent counts only once it has gone `hysteresis` metres from the last
    /// turning point, so noise that goes up and down by less is ignored and a real climb is counted in full.
    static func gainAndLoss(_ altitudes: [Double], hysteresis: Double) -> (gain: Double, loss: Double) {
        guard altitudes.count > 1 else { return (0, 0) }
        var gain = 0.0, loss = 0.0
        var direction = 0
        var low = smoothed(altitudes, 0), high = low, anchor = low, extreme = low
        for index in 1..<altitudes.count {
            let value = smoothed(altitudes, index)
            switch direction {
            case 0:
                low = min(low, value)
                high = max(high, value)
                if value - low >= hysteresis {
                    (direction, anchor, extreme) = (1, low, value)
                } else if high - value >= hysteresis {
                    (direction, anchor, extreme) = (-1, high, value)
                }
            case 1:
                if value > extreme {
                    extreme = value
                } else if extreme - value >= hysteresis {
                    gain += extreme - anchor
                    (direction, anchor, extreme) = (-1, extreme, value)
                }
            default:
                if value < extreme {
                    extreme = value
                } else if value - extreme >= hysteresis {
                    loss += anchor - extreme
                    (direction, anchor, extreme) = (1, extreme, value)
                }
            }
        }
        if direction == 1 { gain += extreme - anchor } else if direction == -1 { loss += anchor - extreme }
        return (gain, loss)
    }

    private static func smoothed(_ altitudes: [Double], _ index: Int) -> Double {
        guard index > 0, index < altitudes.count - 1 else { return altitudes[index] }
        return altitudes[index - 1] * 0.3 + altitudes[index] * 0.4 + altitudes[index + 1] * 0.3
    }
}
