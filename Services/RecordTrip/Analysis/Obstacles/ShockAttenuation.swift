import Foundation

/// How much of a short shock's peak the detector can see at the ride's sample rate, and so how far the shock
/// thresholds scale with the rate.
///
/// A phone's accelerometer averages over its sample interval before it delivers a sample (its decimation filter;
/// `docs/record-trip.md`, "What a phone records at 20 Hz"), and the detector's smoothing averages a few samples more.
/// A 30–50 ms rebound is therefore seen through a box of width `interval × smoothed samples`, sampled every
/// `interval`, at a phase that is pure chance: at 100 Hz a 40 ms half-sine keeps ~76 % of its peak on average, at
/// 20 Hz ~43 %. The thresholds, set at ``ObstacleDetectorSettings/referenceSampleRate``, follow that ratio, so the same
/// shock stands in the same place against them at every rate.
enum ShockAttenuation {
    /// Phases of the sample clock averaged over.
    static let phases = 64

    /// The factor by which the shock thresholds (and the severity's scale) are multiplied for samples at these times:
    /// the expected peak fraction of the reference shock at their median interval ÷ at the reference rate. 1 when the
    /// interval cannot be told (fewer than two distinct times) or the scaling is switched off.
    static func factor(times: [Double], settings: ObstacleDetectorSettings) -> Double {
        guard settings.scalesThresholdsWithRate, let interval = medianInterval(times),
              settings.referenceSampleRate > 0, settings.referenceShockDuration > 0 else { return 1 }
        let here = peakFraction(shock: settings.referenceShockDuration, interval: interval,
                                smoothing: settings.smoothingWindow)
        let reference = peakFraction(shock: settings.referenceShockDuration, interval: 1 / settings.referenceSampleRate,
                                     smoothing: settings.smoothingWindow)
        let ratio = here / reference
        return ratio.isFinite && ratio > 0 ? ratio : 1
    }

    /// The median of up to 2,001 positive gaps between neighbouring samples spread over the ride (a pause in the
    /// recording does not move it); `nil` when there is none.
    static func medianInterval(_ times: [Double]) -> Double? {
        guard times.count > 1 else { return nil }
        let pairs = times.count - 1
        let step = max(1, pairs / 2_001)
        var gaps: [Double] = []
        gaps.reserveCapacity(min(pairs, 2_002))
        for index in stride(from: 0, to: pairs, by: step) {
            let gap = times[index + 1] - times[index]
            if gap > 0, gap.isFinite { gaps.append(gap) }
        }
        guard !gaps.isEmpty else { return nil }
        gaps.sort()
        return gaps[gaps.count / 2]
    }

    /// The largest sample of a half-sine shock of `shock` seconds and amplitude 1, as the detector sees it — averaged
    /// over a box of `interval` × the samples the centred `smoothing` window holds — taken over the shock, averaged
    /// over the phase of the sample clock.
    static func peakFraction(shock: Double, interval: Double, smoothing: Double) -> Double {
        let smoothed = 2 * (smoothing / 2 / interval + 1e-9).rounded(.down) + 1
        let box = smoothed * interval
        var sum = 0.0
        for phase in 0..<phases {
            var time = (Double(phase) + 0.5) / Double(phases) * interval - box / 2 - interval
            var largest = 0.0
            while time <= shock + box / 2 + interval {
                largest = max(largest, boxMean(at: time, box: box, shock: shock))
                time += interval
            }
            sum += largest
        }
        return sum / Double(phases)
    }

    /// The mean of sin(π t / shock) on [0, shock] (0 elsewhere) over the box of width `box` centred on `time`.
    static func boxMean(at time: Double, box: Double, shock: Double) -> Double {
        let start = max(0, time - box / 2), end = min(shock, time + box / 2)
        guard end > start else { return 0 }
        return shock / .pi * (cos(.pi * start / shock) - cos(.pi * end / shock)) / box
    }
}
