/// Moving averages over a time window centred on each sample, for samples in time order at any (even irregular) rate.
/// Linear time: two cursors walk the window's edges and a running prefix sum gives each mean.
enum CentredMean {
    /// The mean of `values` over the samples whose time lies within `width / 2` of each sample's time.
    static func of(_ values: [Double], times: [Double], width: Double) -> [Double] {
        let count = values.count
        guard count > 0 else { return [] }
        var prefix = [Double](repeating: 0, count: count + 1)
        for index in 0..<count {
            prefix[index + 1] = prefix[index] + values[index]
        }
        let half = width / 2
        var result = [Double](repeating: 0, count: count)
        var low = 0
        var high = 0
        for index in 0..<count {
            while times[low] < times[index] - half { low += 1 }
            if high < index { high = index }
            while high + 1 < count, times[high + 1] <= times[index] + half { high += 1 }
            result[index] = (prefix[high + 1] - prefix[low]) / Double(high + 1 - low)
        }
        return result
    }

    /// For each sample, the index of the latest sample at least `lag` seconds earlier (`nil` when there is none).
    static func lagged(times: [Double], lag: Double) -> [Int?] {
        var result = [Int?](repeating: nil, count: times.count)
        var cursor = -1
        for index in times.indices {
            while cursor + 1 < index, times[cursor + 1] <= times[index] - lag { cursor += 1 }
            result[index] = cursor >= 0 ? cursor : nil
        }
        return result
    }
}
