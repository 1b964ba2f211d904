/// `waypoint-bench paths`' JSON line (`docs/benchmarks.md`, `## paths`):
///
/// ```json
/// {"approve_to_event_ms":{"p50":…,"p99":…},"draft_validate_ms":{…},"postgres":{"bbox_ms":{…}}|null,
///  "sqlite":{"bbox_ms":{…}},"street_search_ms":{…}}
/// ```
///
/// Every key is always printed; `postgres` is `null` when `WAYPOINT_BENCH_POSTGRES_URL` is not set (or `--backends`
/// leaves it out), `sqlite` when `--backends` leaves it out. Street search, the draft and approve → event are the SQLite
/// service's (the embedded default) when it runs, else the PostgreSQL service's; the other's are on stderr.
struct PathsFigures: Encodable {
    var sqlite: BackendFigures?
    var postgres: BackendFigures?
    var streetSearchMilliseconds: Latencies
    var draftValidateMilliseconds: Latencies
    var approveToEventMilliseconds: Latencies

    /// What is measured per backend.
    struct BackendFigures: Encodable {
        /// `GET /v1/paths?bbox=…&zoom=…`.
        var bboxMilliseconds: Latencies

        enum CodingKeys: String, CodingKey {
            case bboxMilliseconds = "bbox_ms"
        }
    }

    enum CodingKeys: String, CodingKey {
        case sqlite, postgres
        case streetSearchMilliseconds = "street_search_ms", draftValidateMilliseconds = "draft_validate_ms"
        case approveToEventMilliseconds = "approve_to_event_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sqlite, forKey: .sqlite)
        try container.encode(postgres, forKey: .postgres)
        try container.encode(streetSearchMilliseconds, forKey: .streetSearchMilliseconds)
        try container.encode(draftValidateMilliseconds, forKey: .draftValidateMilliseconds)
        try container.encode(approveToEventMilliseconds, forKey: .approveToEventMilliseconds)
    }
}
