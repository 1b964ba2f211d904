/// The ride cut into short blocks of time (``ObstacleDetectorSettings/baselineBlock``): each block's RMS of the
/// filtered vertical acceleration and mean speed, the rolling baseline (median RMS of the neighbouring blocks, so a
/// shock does not raise its own bar), and the rough stretches (sustained high RMS for the speed).
struct RoughnessBlocks {
    /// Where a rough stretch begins and ends (seconds), with its mean vibration RMS (m/s²) and speed (m/s).
    struct Stretch {
        var start: Double
        var end: Double
        var rms: Double
        var speed: Double
    }

    var origin: Double
    var length: Double
    /// RMS of the smoothed signal (the baseline's input) and of the high-passed one (the roughness's), m/s².
    var rms: [Double]
    var vibration: [Double]
    var speed: [Double]
    var baseline: [Double]

    init(_ vertical: VerticalAcceleration, speeds: [Double], settings: ObstacleDetectorSettings) {
        origin = vertical.times.first ?? 0
        length = settings.baselineBlock
        let span = (vertical.times.last ?? origin) - origin
        let count = Int((span / length).rounded(.down)) + 1
        var squares = [Double](repeating: 0, count: count)
        var vibrationSquares = [Double](repeating: 0, count: count)
        var speedSums = [Double](repeating: 0, count: count)
        var samples = [Int](repeating: 0, count: count)
        var known = [Int](repeating: 0, count: count)
        for index in vertical.times.indices {
            let block = Self.block(of: vertical.times[index], origin: origin, length: length, count: count)
            squares[block] += vertical.filtered[index] * vertical.filtered[index]
            vibrationSquares[block] += vertical.highPassed[index] * vertical.highPassed[index]
            samples[block] += 1
            if speeds[index].isFinite {
                speedSums[block] += speeds[index]
                known[block] += 1
            }
        }
        rms = (0..<count).map { samples[$0] > 0 ? (squares[$0] / Double(samples[$0])).squareRoot() : .nan }
        vibration = (0..<count).map {
            samples[$0] > 0 ? (vibrationSquares[$0] / Double(samples[$0])).squareRoot() : .nan
        }
        // A block whose speed is unknown for half its samples or more is not gated through.
        speed = (0..<count).map { known[$0] * 2 > samples[$0] ? speedSums[$0] / Double(known[$0]) : .nan }
        baseline = Self.rollingMedian(rms, width: max(1, settings.baselineBlocks))
    }

    static func block(of time: Double, origin: Double, length: Double, count: Int) -> Int {
        min(count - 1, max(0, Int(((time - origin) / length).rounded(.down))))
    }

    /// The block holding `time`.
    func block(of time: Double) -> Int {
        Self.block(of: time, origin: origin, length: length, count: rms.count)
    }

    /// The median of the finite values among `width` neighbours centred on each (0 when there is none).
    static func rollingMedian(_ values: [Double], width: Int) -> [Double] {
        let half = width / 2
        var window: [Double] = []
        window.reserveCapacity(width)
        return values.indices.map { index in
            window.removeAll(keepingCapacity: true)
            for other in max(0, index - half)...min(values.count - 1, index + half) where values[other].isFinite {
                window.append(values[other])
            }
            guard !window.isEmpty else { return 0 }
            window.sort()
            return window[window.count / 2]
        }
    }

    /// Runs of blocks ridden at or above the gate speed whose vibration RMS exceeds `roughRMSPerSpeed` × speed (gaps
    /// of up to `roughMaximumGap` bridged), lasting at least `roughMinimumDuration`.
    func stretches(settings: ObstacleDetectorSettings) -> [Stretch] {
        let bridge = Int((settings.roughMaximumGap / length).rounded())
        var result: [Stretch] = []
        var run: (first: Int, last: Int)?
        for block in 0...rms.count {
            let rough = block < rms.count && speed[block] >= settings.minimumSpeed
                && vibration[block] > settings.roughRMSPerSpeed * speed[block]
            if rough, let open = run, block - open.last <= bridge + 1 {
                run = (open.first, block)
                continue
            }
            if let closed = run, block == rms.count || rough || block - closed.last > bridge {
                if let stretch = stretch(closed.first...closed.last, settings: settings) { result.append(stretch) }
                run = nil
            }
            if rough { run = (block, block) }
        }
        return result
    }

    func stretch(_ blocks: ClosedRange<Int>, settings: ObstacleDetectorSettings) -> Stretch? {
        guard Double(blocks.count) * length >= settings.roughMinimumDuration else { return nil }
        let known = blocks.filter { speed[$0].isFinite && vibration[$0].isFinite }
        guard !known.isEmpty else { return nil }
        let meanRMS = known.reduce(0) { $0 + vibration[$1] } / Double(known.count)
        let meanSpeed = known.reduce(0) { $0 + speed[$1] } / Double(known.count)
        return Stretch(start: origin + Double(blocks.lowerBound) * length,
                       end: origin + Double(blocks.upperBound + 1) * length, rms: meanRMS, speed: meanSpeed)
    }
}
