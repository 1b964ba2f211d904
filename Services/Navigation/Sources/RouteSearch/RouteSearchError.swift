import RoadNetwork
import ServiceKit

/// Why a route search has no answer; each renders itself as problem+json with a stable code (OSRM's names for the two
/// a routing client knows: `NoSegment`, `NoRoute`).
public enum RouteSearchError: Error, Sendable, Hashable, ProblemConvertible {
    /// Point `index` (0 the origin, then the via points, last the destination) lies farther than `radius` metres from
    /// any street a bicycle may use.
    case noSegment(index: Int, count: Int, radius: Double)
    /// Leg `leg` joins parts of the network no bicycle route connects.
    case noRoute(leg: Int)
    /// Leg `leg` starts where it ends.
    case samePoint(leg: Int)
    /// A query the router refuses for another reason (the routes check every field first; this is the backstop).
    case invalid(String)

    public var problem: Problem {
        switch self {
        case .noSegment(let index, let count, let radius):
            Problem(status: .unprocessableContent, code: "NoSegment", title: "No street near a point",
                    detail: "The \(Self.name(index, count)) is more than \(Int(radius)) m from any street a bicycle may use.")
        case .noRoute(let leg):
            Problem(status: .unprocessableContent, code: "NoRoute", title: "No route",
                    detail: "No bicycle route connects the points of leg \(leg) (they lie on parts of the network that do not join).")
        case .samePoint(let leg):
            Problem(status: .unprocessableContent, code: "same-point", title: "A leg starts where it ends",
                    detail: "Leg \(leg) starts and ends at the same place; leave out the repeated point.")
        case .invalid(let detail):
            Problem(status: .unprocessableContent, code: "invalid-route-query", title: "Invalid route query", detail: detail)
        }
    }

    /// `origin`, `destination` or `via point N` (1-based).
    static func name(_ index: Int, _ count: Int) -> String {
        index == 0 ? "origin" : index == count - 1 ? "destination" : "via point \(index)"
    }
}
