extension Duration {
    /// Whole milliseconds, clamped to librdkafka's `int` timeouts (negative becomes 0).
    var kafkaMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return seconds < 0 ? 0 : .max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, 0))
    }
}
