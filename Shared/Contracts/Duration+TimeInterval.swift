import Foundation

extension Duration {
    /// The duration in seconds, for `Date` arithmetic and rates.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
