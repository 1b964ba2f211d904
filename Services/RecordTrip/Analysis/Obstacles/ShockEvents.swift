/// Peaks of the filtered vertical acceleration against the rolling baseline and the speed-scaled threshold, behind
/// the speed gate and the rotation guard; grouped into events and given a type guess.
struct ShockEvent {
    var time: Double
    /// |peak| of the filtered vertical acceleration, m/s².
    var peak: Double
    var speed: Double
    var kind: ObstacleCandidate.Kind
}

enum ShockEvents {
    /// Every event of the ride, in time order.
    static func find(_ vertical: VerticalAcceleration, speeds: [Double], blocks: RoughnessBlocks,
                     settings: ObstacleDetectorSettings) -> [ShockEvent] {
        let signal = vertical.filtered
        let times = vertical.times
        var events: [ShockEvent] = []
        var group: (first: Int, last: Int, peak: Int, threshold: Double)?
        let perSpeed = settings.thresholdPerSpeed * vertical.shockScale
        for index in signal.indices {
            let speed = speeds[index]
            guard speed >= settings.minimumSpeed, !vertical.rotating[index] else { continue }
            let threshold = max(settings.baselineFactor * blocks.baseline[blocks.block(of: times[index])],
                                perSpeed * speed)
            guard abs(signal[index]) > threshold else { continue }
            if var open = group, times[index] - times[open.last] <= settings.eventGap {
                open.last = index
                if abs(signal[index]) > abs(signal[open.peak]) { (open.peak, open.threshold) = (index, threshold) }
                group = open
                continue
            }
            if let closed = group { events.append(event(closed, vertical, speeds: speeds, settings: settings)) }
            group = (index, index, index, threshold)
        }
        if let closed = group { events.append(event(closed, vertical, speeds: speeds, settings: settings)) }
        return events
    }

    static func event(_ group: (first: Int, last: Int, peak: Int, threshold: Double), _ vertical: VerticalAcceleration,
                      speeds: [Double], settings: ObstacleDetectorSettings) -> ShockEvent {
        let kind = kindGuess(group, vertical, settings: settings)
        return ShockEvent(time: vertical.times[group.peak], peak: abs(vertical.filtered[group.peak]),
                          speed: speeds[group.peak], kind: kind)
    }

    /// Pothole: the wheel drops first (the first clear excursion is downwards, then the rebound).
    /// Bump: the wheel rises first (the first clear excursion is upwards, then the fall).
    static func kindGuess(_ group: (first: Int, last: Int, peak: Int, threshold: Double),
                          _ vertical: VerticalAcceleration, settings: ObstacleDetectorSettings) -> ObstacleCandidate.Kind {
        let signal = vertical.filtered
        let times = vertical.times
        let peakValue = signal[group.peak]
        let clear = max(settings.firstExcursionFraction * abs(peakValue), 0.5 * group.threshold)
        var start = group.first
        while start > 0, times[start - 1] >= times[group.first] - settings.eventGap / 2 { start -= 1 }
        var firstSign = peakValue
        for index in start...group.peak where abs(signal[index]) >= clear {
            firstSign = signal[index]
            break
        }
        return firstSign < 0 ? .pothole : .bump
    }
}
