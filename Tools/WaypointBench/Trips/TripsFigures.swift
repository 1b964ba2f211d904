/// `waypoint-bench trips`' JSON line (`docs/benchmarks.md`, `## trips`). Every key is always printed; `null` for a
/// figure not measured yet or left out by the run.
///
/// Map matching is measured by `MatchingBench`, statistics by `TripStatsFigures`, obstacle detection by
/// `ObstacleFigures`, `ingest_fixes_per_s`, `chunk_ms` and `finish_to_event_ms` (chunked upload and finish through
/// HTTP) by `TripServiceBench`.
struct TripsFigures: Encodable {
    /// Matching one 1-hour ride at 1 Hz (3,600 fixes), per city, in milliseconds.
    var matchMilliseconds: CityLatencies?
    /// Mean route mismatch fraction of our matcher per noise σ.
    var matchRMF: SigmaFigures?
    /// Mean length of either line farther than 10 m from the other, over the true length (`RouteMismatch.beyond`).
    var matchBeyond: SigmaFigures?
    /// The same two figures on rides along the shortest routes instead of the bike profile's.
    var matchShortestRMF: SigmaFigures?
    var matchShortestBeyond: SigmaFigures?
    /// leuvenmapmatching on the same traces: its time per trace and its mean RMF per σ.
    var peerMatchMilliseconds: Latencies?
    var peerRMF: SigmaFigures?
    /// What the matching figures were measured on (rides, lengths, what the peer was given).
    var matchNote: String?
    /// Fixes acknowledged per second while riders upload chunks at once, and each chunk's latency.
    var ingestFixesPerSecond: Double?
    var chunkMilliseconds: Latencies?
    /// Statistics of a 1-hour ride, obstacle detection on simulated rides.
    var statsMilliseconds: Latencies?
    var obstacles: ObstacleFigures?
    var finishToEventMilliseconds: Latencies?

    enum CodingKeys: String, CodingKey {
        case matchMilliseconds = "match_ms", matchRMF = "match_rmf", peerMatchMilliseconds = "peer_match_ms", peerRMF = "peer_rmf"
        case matchBeyond = "match_beyond_10m", matchShortestRMF = "match_shortest_rmf", matchShortestBeyond = "match_shortest_beyond_10m"
        case matchNote = "match_note", ingestFixesPerSecond = "ingest_fixes_per_s", chunkMilliseconds = "chunk_ms"
        case statsMilliseconds = "stats_ms", obstacles
        case finishToEventMilliseconds = "finish_to_event_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(matchMilliseconds, forKey: .matchMilliseconds)
        try container.encode(matchRMF, forKey: .matchRMF)
        try container.encode(matchBeyond, forKey: .matchBeyond)
        try container.encode(matchShortestRMF, forKey: .matchShortestRMF)
        try container.encode(matchShortestBeyond, forKey: .matchShortestBeyond)
        try container.encode(peerMatchMilliseconds, forKey: .peerMatchMilliseconds)
        try container.encode(peerRMF, forKey: .peerRMF)
        try container.encode(matchNote, forKey: .matchNote)
        try container.encode(ingestFixesPerSecond, forKey: .ingestFixesPerSecond)
        try container.encode(chunkMilliseconds, forKey: .chunkMilliseconds)
        try container.encode(statsMilliseconds, forKey: .statsMilliseconds)
        try container.encode(obstacles, forKey: .obstacles)
        try container.encode(finishToEventMilliseconds, forKey: .finishToEventMilliseconds)
    }
}

/// Latencies per city.
struct CityLatencies: Encodable {
    var krems: Latencies?
    var helsinki: Latencies?
}

/// A figure per noise σ (metres).
struct SigmaFigures: Encodable {
    var sigma5: Double?
    var sigma10: Double?
    var sigma20: Double?
}
