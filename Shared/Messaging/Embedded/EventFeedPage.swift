/// One response of `GET /v1/internal/events`: the producer's events after the requested position.
public struct EventFeedPage: Codable, Sendable, Hashable {
    /// The producing service.
    public var source: String
    /// Events in position order (possibly none after a long poll timed out).
    public var events: [PublishedEvent]
    /// The producer's head position when the page was read.
    public var head: Int64
    /// The last position the producer read for this page (at or past its last event: the events it does not serve
    /// are read past). A consumer that handled the whole page asks after it next (``FeedCursor``); absent from
    /// producers that do not say.
    public var scanned: Int64?

    /// Creates a page.
    public init(source: String, events: [PublishedEvent], head: Int64, scanned: Int64? = nil) {
        self.source = source
        self.events = events
        self.head = head
        self.scanned = scanned
    }
}
