import Contracts
import Foundation

/// Where a consumer pulls one producer's log in the embedded transport.
public struct EmbeddedFeed: Sendable, Hashable {
    /// The producing service's name (as in its events' `source`).
    public var source: String
    /// The producer's base URL, e.g. `http://127.0.0.1:8081`.
    public var baseURL: String
    /// The internal token the producer's `/v1/internal/*` routes require.
    public var internalToken: String
    /// The event types the consumer applies (`types=` on each poll): the producer serves only those, so events the
    /// consumer would ignore cost it nothing and do not end its long poll. `nil`: every event the feed serves.
    public var eventTypes: Set<String>?

    /// Creates a feed description.
    public init(source: String, baseURL: String, internalToken: String, eventTypes: Set<String>? = nil) {
        self.source = source
        self.baseURL = baseURL
        self.internalToken = internalToken
        self.eventTypes = eventTypes
    }

    /// This feed, asking only for `types` (`nil`: every event).
    public func only(_ types: Set<String>?) -> EmbeddedFeed {
        var feed = self
        feed.eventTypes = types
        return feed
    }

    /// The `types` query value: the types sorted, comma-separated; `nil` when every event is asked for.
    var typesQuery: String? { eventTypes.map { $0.sorted().joined(separator: ",") } }

    /// The URL of one page of this feed: events after `after`, at most `limit`, long-polling up to `wait`, and only
    /// ``eventTypes`` when the feed names them. Every consumer of a feed asks through here, so none forgets `types=`
    /// (without it the producer's long poll wakes, reads and passes over every event of its log — each position
    /// update, each ride chunk — on the consumer's behalf).
    public func pageURL(after: Int64, limit: Int, wait: Duration) -> String {
        let types = typesQuery.map { "&types=\($0)" } ?? ""
        return "\(baseURL)/v1/internal/events?after=\(after)&limit=\(limit)&wait=\(wait.timeInterval)\(types)"
    }
}
