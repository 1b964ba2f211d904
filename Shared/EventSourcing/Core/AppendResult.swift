/// What an append committed: the global positions and the stream's new version.
public struct AppendResult: Sendable, Hashable {
    /// The stream appended to.
    public var streamID: String
    /// Global position of the first appended event.
    public var firstPosition: Int64
    /// Global position of the last appended event (events of one append are contiguous).
    public var lastPosition: Int64
    /// The stream's version after the append: pass it as `.exact(…)` for the next append.
    public var streamVersion: Int64

    /// Creates a result.
    public init(streamID: String, firstPosition: Int64, lastPosition: Int64, streamVersion: Int64) {
        self.streamID = streamID
        self.firstPosition = firstPosition
        self.lastPosition = lastPosition
        self.streamVersion = streamVersion
    }
}
