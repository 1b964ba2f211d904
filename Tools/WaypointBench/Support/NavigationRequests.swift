import Foundation
import RoadNetwork

/// The navigation requests the benches send (`docs/navigation.md`): a route search, a session's start, its position
/// updates. Used by `waypoint-bench navigation` and by the gateway benchmark's bike mix.
enum NavigationRequests {
    /// `GET /v1/routes` of a pair: best + 2 alternatives with steps.
    static func routePath(_ from: RoadPoint, _ to: RoadPoint) -> String {
        "/v1/routes?from=\(String(format: "%.6f,%.6f", from.latitude, from.longitude))&to=\(String(format: "%.6f,%.6f", to.latitude, to.longitude))"
            + "&alternatives=2&steps=true"
    }

    /// The body of `POST /v1/navigation/sessions` from `from` to `to`.
    static func sessionBody(from: RoadPoint, to: RoadPoint) -> String {
        #"{"from":{"lat":\#(from.latitude),"lng":\#(from.longitude)},"to":{"lat":\#(to.latitude),"lng":\#(to.longitude)}}"#
    }

    /// `POST` here with ``RideAlong/body(_:speed:accuracy:time:)``.
    static func positionsPath(_ session: UUID) -> String {
        "/v1/navigation/sessions/\(session.uuidString.lowercased())/positions"
    }
}
