/// One backend's figures, in the JSON shape of `waypoint-bench eventstore` (whole numbers per second).
struct EventStoreFigures: Encodable, Sendable {
    /// Sequential single-event appends per second, each waiting for its durable commit.
    var singleC1: Throughput
    /// The same with the caller on an event loop, as a service's request handler.
    var singleC1OnLoop: Throughput
    /// Single-event appends per second by 16 concurrent writers (group commit batches them).
    var singleC16: Throughput
    /// Events per second appended in 100-event appends.
    var batch100: Throughput
    /// Events per second read by `readAll` in 1,000-event pages from position 0.
    var readAll: Throughput
    /// Events per second replayed by a projection rebuild over the whole log.
    var rebuild: Throughput

    private enum CodingKeys: String, CodingKey {
        case singleC1 = "single_c1_appends_per_s"
        case singleC1OnLoop = "single_c1_on_loop_appends_per_s"
        case singleC16 = "single_c16_appends_per_s"
        case batch100 = "batch100_events_per_s"
        case readAll = "read_all_events_per_s"
        case rebuild = "rebuild_events_per_s"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(singleC1.roundedPerSecond, forKey: .singleC1)
        try container.encode(singleC1OnLoop.roundedPerSecond, forKey: .singleC1OnLoop)
        try container.encode(singleC16.roundedPerSecond, forKey: .singleC16)
        try container.encode(batch100.roundedPerSecond, forKey: .batch100)
        try container.encode(readAll.roundedPerSecond, forKey: .readAll)
        try container.encode(rebuild.roundedPerSecond, forKey: .rebuild)
    }
}

/// The whole `eventstore` report: PostgreSQL is `null` when no server was configured.
struct EventStoreReport: Encodable, Sendable {
    var sqlite: EventStoreFigures
    var postgres: EventStoreFigures?

    private enum CodingKeys: String, CodingKey {
        case sqlite, postgres
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sqlite, forKey: .sqlite)
        // `encode` (not `encodeIfPresent`) so that an absent backend reads as an explicit null.
        try container.encode(postgres, forKey: .postgres)
    }
}
