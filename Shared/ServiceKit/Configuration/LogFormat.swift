/// How log lines are written to standard output.
public enum LogFormat: String, Sendable, CaseIterable {
    /// One JSON object per line (the default; what log shippers parse).
    case json
    /// swift-log's human-readable `StreamLogHandler` format, for a terminal.
    case text
}
