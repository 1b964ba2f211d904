import Foundation

/// Where a consumer pulls one producer's log in the embedded transport.
public struct EmbeddedFeed: Sendable, Hashable {
    /// The producing service's name (as in its events' `source`).
    public var source: String
    /// The producer's base URL, e.g. `http://127.0.0.1:8081`.
    public var baseURL: String
    /// The internal token the producer's `/v1/internal/*` routes require.
    public var internalToken: String

    /// Creates a feed description.
    public init(source: String, baseURL: String, internalToken: String) {
        self.source = source
        self.baseURL = baseURL
        self.internalToken = internalToken
    }
}
