extension RideSimulator {
    /// Up to `count` rides between random vertices whose best route is `length` metres long (at most 100 draws a
    /// ride), each ridden with `settings`; the same seed draws the same rides. `weights` chooses the routes ridden
    /// (default: the router's, i.e. the bike profile's preferences — which the matcher's preference cost shares;
    /// plain lengths give riders who take the shortest way instead).
    public func rides(count: Int, length: ClosedRange<Double>, settings: Settings = Settings(), seed: UInt64,
                      weights: RoadWeights? = nil) -> [Ride] {
        let graph = router.graph
        guard graph.vertexCount > 1, count > 0 else { return [] }
        var random = SplitMixRandom(seed: seed)
        var rides: [Ride] = []
        for _ in 0..<(100 * count) where rides.count < count {
            let a = Int.random(in: 0..<graph.vertexCount, using: &random), b = Int.random(in: 0..<graph.vertexCount, using: &random)
            guard let route = router.route(fromVertex: a, toVertex: b, weights: weights), length.contains(route.distance) else { continue }
            rides.append(ride(along: route, settings: settings, seed: random.next()))
        }
        return rides
    }

    /// A ride of about `duration` seconds: legs between random vertices 1–4 km apart joined end to end (through
    /// ``RoadRouter/route(fromVertex:toVertex:weights:)``), then ridden with `settings`; `nil` when the graph offers no
    /// such legs.
    public func longRide(duration: Double, settings: Settings = Settings(), seed: UInt64) -> Ride? {
        let graph = router.graph
        guard graph.vertexCount > 1 else { return nil }
        var random = SplitMixRandom(seed: seed)
        let metres = duration * (settings.speed.lowerBound + settings.speed.upperBound) / 2
        var here = Int.random(in: 0..<graph.vertexCount, using: &random)
        var joined: RoadRoute?
        for _ in 0..<10_000 where (joined?.distance ?? 0) < metres {
            let next = Int.random(in: 0..<graph.vertexCount, using: &random)
            guard let leg = router.route(fromVertex: here, toVertex: next), (1_000...4_000).contains(leg.distance) else { continue }
            joined = joined.map { RoadRoute(segments: $0.segments + leg.segments, distance: $0.distance + leg.distance,
                                            duration: $0.duration + leg.duration, weight: $0.weight + leg.weight) } ?? leg
            here = next
        }
        return joined.map { ride(along: $0, settings: settings, seed: random.next()) }
    }
}
