/// Moving averages over a time window centred on each sample, for samples in time order at any (even irregular) rate.
/// Linear time: two cursors walk the window's edges and a running sum gives each mean.
enum CentredMean {
    /// The mean of `values` over the samples whose time lies within `width / 2` of each sample's time.
    static func of(_ values: [Double], times: [Double], width: Double) -> [Double] {
        let count = values.count
        guard count > 0 else { return [] }
        let half = width / 2
        var result = [Double](repeating: 0, count: count)
        var low = 0
        var high = -1
        var sum = 0.0
        for index in 0..<count {
            while high + 1 < count, times[high + 1] <= times[index] + half {
                high += 1
                sum += values[high]
            }
            while times[low] < times[index] - half {
                sum -= values[low]
                low += 1
            }
            result[index] = sum / Double(high + 1 - low)
        }
        return result
    }
}
