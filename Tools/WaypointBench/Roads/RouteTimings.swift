import RoadNetwork

/// Route requests timed one at a time, as a service answers them: snapping both points, the search, and building the
/// `RoadRoute` values (geometry, OSM node sequences).
struct RouteTimings: CustomStringConvertible {
    /// Requests that found a route (best plus alternatives when asked).
    var routed = Latencies(resolution: 0.001)
    /// Requests answered `.noRoute` (disconnected parts, one-way traps): counted apart, not in ``routed``.
    var noRoute = Latencies(resolution: 0.001)
    /// Indexes (in the pairs measured) of the requests answered `.noRoute`.
    var noRoutePairs: [Int] = []
    /// Routed requests that returned at least one alternative.
    var withAlternatives = 0
    /// Requests refused with a ``RouteError`` (none expected: the pairs were snapped before), and the first one.
    var refused = 0
    var firstRefusal: RouteError?

    /// Requests warmed up before timing (not counted): the first pairs once, so caches and lazy set-up are not timed.
    static let warmUp = 10

    /// Times `router.route` for every pair with `alternatives` alternatives (0: the best route only).
    static func measure(_ router: RoadRouter, pairs: [(RoadPoint, RoadPoint)], alternatives: Int) -> RouteTimings {
        let requests = pairs.map { RouteRequest(origin: $0.0, destination: $0.1, alternatives: alternatives, snapRadius: RoutePairs.snapRadius) }
        for request in requests.prefix(warmUp) { _ = try? router.route(request) }
        var timings = RouteTimings()
        let clock = ContinuousClock()
        for (index, request) in requests.enumerated() {
            let start = clock.now
            let result: RouteResult
            do {
                result = try router.route(request)
            } catch {
                timings.refused += 1
                timings.firstRefusal = timings.firstRefusal ?? error
                continue
            }
            let elapsed = clock.now - start
            switch result {
            case .routes(let routes):
                timings.routed.record(elapsed)
                if routes.count > 1 { timings.withAlternatives += 1 }
            case .noRoute:
                timings.noRoute.record(elapsed)
                timings.noRoutePairs.append(index)
            }
        }
        return timings
    }

    /// Routed requests.
    var routedCount: Int { routed.milliseconds.count }

    /// Share of routed requests with at least one alternative (0 without any routed request).
    var alternativesRate: Double {
        routedCount > 0 ? Double(withAlternatives) / Double(routedCount) : 0
    }

    var description: String {
        var text = "routed \(routedCount): \(routed); no route \(noRoute.milliseconds.count)"
        if !noRoute.milliseconds.isEmpty { text += " (\(noRoute))" }
        if refused > 0 { text += "; refused \(refused), first: \(firstRefusal.map { "\($0)" } ?? "?")" }
        return text
    }
}
