/// One entry of the gateway's route table: a path prefix and the service that owns it.
public struct GatewayRoute: Sendable, Hashable, CustomStringConvertible {
    /// The path the route covers, e.g. `/v1/tours`; matched segment by segment.
    public var path: String
    /// The owning service (`auth`, `tour-management`, …); `nil` for paths that are never exposed (`/v1/internal`).
    public var upstream: String?
    /// Whether deeper paths belong to the route too (`/v1/tours/{id}/stops` under `/v1/tours`); otherwise only `path`.
    public var coversSubpaths: Bool

    /// A route for `path` (and, with `coversSubpaths`, everything below it) owned by `upstream`.
    public init(_ path: String, to upstream: String?, coversSubpaths: Bool = true) {
        self.path = path
        self.upstream = upstream
        self.coversSubpaths = coversSubpaths
    }

    /// The path split into lower-case segments (``RouteTable`` keeps them; a request does not split routes).
    var segments: [Substring] { path.lowercased().split(separator: "/") }

    /// The label of this route in metrics and logs: `/v1/tours/*` for a prefix, the path itself otherwise.
    public var template: String { coversSubpaths ? path + "/*" : path }

    /// `/v1/tours/* → tour-management`.
    public var description: String { "\(template) → \(upstream ?? "(not exposed)")" }
}
