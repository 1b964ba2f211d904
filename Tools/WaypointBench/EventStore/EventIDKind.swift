import ArgumentParser
import Foundation

/// How the benchmark generates event ids: the index on `event_id` (idempotent retries) is the one random-order index
/// an append touches, so this choice moves the batch figures.
enum EventIDKind: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// UUIDv4, as `NewEvent`'s default `UUID()` gives services today.
    case random
    /// UUIDv7 (RFC 9562): millisecond timestamp first, so new ids land at the right edge of the index.
    case timeOrdered = "time-ordered"
}

extension UUID {
    /// A UUIDv7: 48-bit Unix milliseconds, a 12-bit counter from `sequence` (ordered within a millisecond), random rest.
    static func timeOrdered(sequence: Int) -> UUID {
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1_000)
        var random = SystemRandomNumberGenerator()
        let tail = random.next() as UInt64
        let counter = UInt16(truncatingIfNeeded: sequence) & 0x0FFF
        return UUID(uuid: (
            UInt8(truncatingIfNeeded: milliseconds >> 40), UInt8(truncatingIfNeeded: milliseconds >> 32),
            UInt8(truncatingIfNeeded: milliseconds >> 24), UInt8(truncatingIfNeeded: milliseconds >> 16),
            UInt8(truncatingIfNeeded: milliseconds >> 8), UInt8(truncatingIfNeeded: milliseconds),
            0x70 | UInt8(counter >> 8), UInt8(truncatingIfNeeded: counter),
            0x80 | UInt8(truncatingIfNeeded: tail >> 56) & 0x3F, UInt8(truncatingIfNeeded: tail >> 48),
            UInt8(truncatingIfNeeded: tail >> 40), UInt8(truncatingIfNeeded: tail >> 32),
            UInt8(truncatingIfNeeded: tail >> 24), UInt8(truncatingIfNeeded: tail >> 16),
            UInt8(truncatingIfNeeded: tail >> 8), UInt8(truncatingIfNeeded: tail)))
    }
}
