import Foundation

extension Date {
    /// Microseconds since 1970-01-01T00:00:00Z: the stores' timestamp precision.
    public var microsecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// Creates a date from microseconds since 1970.
    public init(microsecondsSince1970 micros: Int64) {
        self.init(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    /// This date at the stores' precision, so a written and re-read timestamp compare equal.
    public var roundedToMicroseconds: Date {
        Date(microsecondsSince1970: microsecondsSince1970)
    }
}
