/// Elevation gain and loss of a track: altitudes smoothed, then counted between turning points.
struct ElevationProfile {
    private(set) var gain = 0.0
    private(set) var loss = 0.0

    /// The gain and loss of `track` (in time order) under `rules`, from the fixes that have an altitude.
    init(_ track: TrackPoints, rules: StatisticsRules) {
        let smoothed = Self.windowAverage(Self.threePoint(track.altitudes), times: track.altitudeTimes,
                                          halfWidth: rules.elevationWindowS)
        (gain, loss) = Self.turningPointSums(smoothed, hysteresis: rules.elevationHysteresisM)
    }

    /// gpxpy's filter: each inner altitude becomes 0.3 × previous + 0.4 × itself + 0.3 × next.
    static func threePoint(_ altitudes: [Double]) -> [Double] {
        guard altitudes.count > 2 else { return altitudes }
        var out = altitudes
        for index in 1..<(altitudes.count - 1) {
            out[index] = altitudes[index - 1] * 0.3 + altitudes[index] * 0.4 + altitudes[index + 1] * 0.3
        }
        return out
    }

    /// Each value replaced by the mean of the values whose time lies within `halfWidth` seconds of its own: two
    /// pointers over a running sum, O(n).
    static func windowAverage(_ values: [Double], times: [Double], halfWidth: Double) -> [Double] {
        guard halfWidth > 0, values.count > 2, zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }) else { return values }
        var out = values
        var low = 0, high = 0, sum = 0.0
        for index in values.indices {
            while high < values.count, times[high] <= times[index] + halfWidth {
                sum += values[high]
                high += 1
            }
            while times[low] < times[index] - halfWidth {
                sum -= values[low]
                low += 1
            }
            out[index] = sum / Double(high - low)
        }
        return out
    }

    /// Gain and loss between turning points: a climb or descent counts only once it has gone `hysteresis` metres from
    /// the last turning point, so wiggles smaller than that are ignored and a real climb is counted in full.
    static func turningPointSums(_ values: [Double], hysteresis: Double) -> (gain: Double, loss: Double) {
        guard let first = values.first else { return (0, 0) }
        var gain = 0.0, loss = 0.0
        var direction = 0
        var low = first, high = first, anchor = first, extreme = first
        for value in values.dropFirst() {
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
}
