/// One response of `GET /v1/internal/events`: the producer's events after the requested position.
public struct EventFeedPage: Codable, Sendable, Hashable {
    /// The producing service.
    public var source: String
    /// Events in position order (possibly none after a long poll timed out).
    public var events: [PublishedEvent]
    /// The producer's head position when the page was read.
    public var head: Int64

    /// Creates a page.
    public init(source: String, events: [PublishedEvent], head: Int64) {
        self.source = source
        self.events = events
        self.head = head
    }
}
