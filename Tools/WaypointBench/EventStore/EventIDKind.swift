import ArgumentParser
import Foundation

/// How the benchmark generates event ids: the index on `event_id` (idempotent retries) is the one index an append
/// may touch at a random place, so this choice moves the batch figures.
enum EventIDKind: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// UUIDv7 (RFC 9562), `NewEvent`'s default: new ids land at the right edge of the index.
    case timeOrdered = "time-ordered"
    /// UUIDv4, as a client that brings its own random ids would: one random index page per event.
    case random
}
