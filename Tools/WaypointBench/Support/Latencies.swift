/// Individually timed operations, summarised as p50 and p99.
struct Latencies: Encodable, Sendable, CustomStringConvertible {
    /// Each operation's wall time, in milliseconds.
    private(set) var milliseconds: [Double] = []
    /// Printed resolution in milliseconds (0.1 by default; sub-millisecond operations use 0.001).
    var resolution = 0.1
    /// Whether the JSON includes `max`.
    var includesMaximum = false

    init(resolution: Double = 0.1, includesMaximum: Bool = false) {
        self.resolution = resolution
        self.includesMaximum = includesMaximum
    }

    mutating func record(_ duration: Duration) {
        milliseconds.append(duration.seconds * 1_000)
    }

    /// The nearest-rank percentile `p` (0…1) in milliseconds; 0 without samples.
    func percentile(_ p: Double) -> Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    private enum CodingKeys: String, CodingKey {
        case p50, p99, max
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rounded(percentile(0.50)), forKey: .p50)
        try container.encode(rounded(percentile(0.99)), forKey: .p99)
        if includesMaximum { try container.encode(rounded(milliseconds.max() ?? 0), forKey: .max) }
    }

    var description: String {
        let (low, high) = (milliseconds.min() ?? 0, milliseconds.max() ?? 0)
        return String(format: "p50 %.3f ms, p99 %.3f ms (min %.3f, max %.3f, n %d)",
                      percentile(0.50), percentile(0.99), low, high, milliseconds.count)
    }

    private func rounded(_ milliseconds: Double) -> Double {
        let scale = (1 / resolution).rounded()
        return (milliseconds * scale).rounded() / scale
    }
}
