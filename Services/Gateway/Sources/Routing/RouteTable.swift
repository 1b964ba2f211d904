import Foundation

/// The gateway's routes as data: which service owns which path prefix. The most specific (longest) prefix wins.
///
/// Paths are compared after normalisation — repeated slashes ignored, percent-encoding decoded, letters lower-cased —
/// so `//V1/%69nternal/events` is still `/v1/internal`. A path with `.` or `..` segments matches nothing.
public struct RouteTable: Sendable {
    /// Every route, as given.
    public let routes: [GatewayRoute]
    /// The routes with their segments (split and lower-cased once, here, not per request), most segments first.
    private let bySpecificity: [(route: GatewayRoute, segments: [Substring])]

    /// A table of `routes`.
    public init(_ routes: [GatewayRoute]) {
        self.routes = routes
        self.bySpecificity = routes.map { ($0, $0.segments) }.sorted { $0.segments.count > $1.segments.count }
    }

    /// What a request path resolves to.
    public enum Resolution: Sendable, Equatable {
        /// Proxied to the route's upstream.
        case proxied(GatewayRoute)
        /// Known but never exposed (`/v1/internal/*`): answered 404.
        case hidden(GatewayRoute)
        /// Not a proxied path: the gateway's own routes (health, metrics, push) or 404.
        case local
    }

    /// The route owning `path` (the path only, no query).
    public func resolve(_ path: String) -> Resolution {
        guard let segments = Self.normalizedSegments(path) else { return .hidden(GatewayRoute(path, to: nil)) }
        for (route, prefix) in bySpecificity {
            guard segments.count >= prefix.count, route.coversSubpaths || segments.count == prefix.count,
                  zip(segments, prefix).allSatisfy({ $0 == $1 })
            else { continue }
            return route.upstream == nil ? .hidden(route) : .proxied(route)
        }
        return .local
    }

    /// The lower-case, percent-decoded segments of `path`; `nil` when a segment is `.` or `..` or does not decode.
    /// A plain segment (lower-case ASCII without `%`, as nearly every request's) is a slice of `path`, not a copy.
    static func normalizedSegments(_ path: String) -> [Substring]? {
        // A path of ASCII bytes (nearly every request's: clients percent-encode the rest) is split on its UTF-8 bytes:
        // `split(separator: "/")` walks grapheme clusters, which cost more than the routing itself. Any other path takes
        // that walk, so a combining mark after a slash keeps the meaning it has always had here.
        var segments: [Substring] = []
        segments.reserveCapacity(6)
        let utf8 = path.utf8
        var start = utf8.startIndex
        var index = start
        while true {
            let atEnd = index == utf8.endIndex
            if atEnd || utf8[index] == UInt8(ascii: "/") {
                if start < index {
                    guard let segment = normalized(path[start..<index]) else { return nil }
                    segments.append(segment)
                }
                if atEnd { return segments }
                index = utf8.index(after: index)
                start = index
            } else {
                guard utf8[index] < 0x80 else { return characterSegments(path) }
                index = utf8.index(after: index)
            }
        }
    }

    /// One raw segment lower-cased and percent-decoded; `nil` for `.`, `..`, a `/` decoded from `%2F`, or bad escapes.
    /// Decoding and case folding only where needed: most segments are plain lower-case ASCII, and Foundation's percent
    /// decoding costs more than the rest of the routing.
    private static func normalized(_ raw: Substring) -> Substring? {
        var segment = raw
        if raw.utf8.contains(UInt8(ascii: "%")) {
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            segment = Substring(decoded)
        }
        if segment.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 >= 0x80 }) {
            segment = Substring(segment.lowercased())
        }
        guard segment != ".", segment != "..", !segment.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return segment
    }

    /// ``normalizedSegments(_:)`` for a path with non-ASCII bytes: split on `/` characters.
    private static func characterSegments(_ path: String) -> [Substring]? {
        var segments: [Substring] = []
        for raw in path.split(separator: "/") {
            guard let segment = normalized(raw) else { return nil }
            segments.append(segment)
        }
        return segments
    }

    /// Waypoint's routes (issue 8): every public prefix of every service, and `/v1/internal` hidden.
    public static let waypoint = RouteTable([
        GatewayRoute("/v1/auth", to: "auth"),
        GatewayRoute("/v1/users", to: "auth"),
        GatewayRoute("/.well-known/jwks.json", to: "auth", coversSubpaths: false),
        GatewayRoute("/v1/tours", to: "tour-management"),
        GatewayRoute("/v1/destinations", to: "tour-management"),
        GatewayRoute("/v1/guides", to: "tour-management"),
        GatewayRoute("/v1/me", to: "tour-management"),
        GatewayRoute("/v1/payments", to: "tour-management"),
        GatewayRoute("/v1/bundles", to: "tour-management"),
        GatewayRoute("/v1/admin/exchange-rates", to: "tour-management"),
        GatewayRoute("/v1/media", to: "tour-management"),
        GatewayRoute("/v1/exchange-rates", to: "tour-management"),
        GatewayRoute("/v1/reviews", to: "tour-management"),
        GatewayRoute("/v1/moderation", to: "tour-management"),
        GatewayRoute("/v1/paths", to: "path-review"),
        GatewayRoute("/v1/streets", to: "path-review"),
        GatewayRoute("/v1/navigation", to: "navigation"),
        GatewayRoute("/v1/routes", to: "navigation"),
        GatewayRoute("/v1/plans", to: "navigation"),
        GatewayRoute("/v1/places", to: "navigation"),
        GatewayRoute("/v1/trips", to: "record-trip"),
        GatewayRoute("/v1/analytics", to: "analytics"),
        GatewayRoute("/v1/internal", to: nil),
    ])
}
