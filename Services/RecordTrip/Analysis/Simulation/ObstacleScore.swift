/// How a detector's candidates compare with a simulated ride's truth: a candidate is true when it falls on an injected
/// obstacle (within ``window`` seconds of a pothole's or bump's first impact, or inside a rough stretch ± the window);
/// each obstacle is found at most once. Scores add up over rides. Test and benchmark support.
public struct ObstacleScore: Sendable, Hashable {
    /// Seconds of slack around an obstacle.
    public static let window = 1.5

    /// Candidates reported, and those that fell on an obstacle.
    public var candidates = 0
    public var trueCandidates = 0
    /// Obstacles injected, and those found.
    public var obstacles = 0
    public var found = 0
    /// Found obstacles whose candidate had the right kind.
    public var rightKind = 0
    /// Metres of smooth road ridden.
    public var smoothMetres = 0.0

    /// An empty score, to add rides to.
    public init() {}

    /// The score of `candidates` on `ride`.
    public init(_ candidates: [ObstacleCandidate], on ride: SimulatedRide) {
        self.candidates = candidates.count
        obstacles = ride.obstacles.count
        smoothMetres = ride.smoothDistance
        var taken = Set<Int>()
        for candidate in candidates {
            let hit = ride.obstacles.indices.first { index in
                let truth = ride.obstacles[index]
                let end = truth.kind == .roughSurface ? truth.end : truth.time
                return candidate.time >= truth.start - Self.window && candidate.time <= end + Self.window
            }
            guard let hit else { continue }
            trueCandidates += 1
            if taken.insert(hit).inserted, ride.obstacles[hit].kind == candidate.kind { rightKind += 1 }
        }
        found = taken.count
    }

    /// True candidates ÷ candidates (1 when there are none).
    public var precision: Double { candidates == 0 ? 1 : Double(trueCandidates) / Double(candidates) }
    /// Obstacles found ÷ obstacles (1 when there are none).
    public var recall: Double { obstacles == 0 ? 1 : Double(found) / Double(obstacles) }
    /// Found obstacles with the right kind ÷ found obstacles.
    public var kindAccuracy: Double { found == 0 ? 1 : Double(rightKind) / Double(found) }
    /// False candidates per 10 km of smooth road.
    public var falsePer10km: Double {
        smoothMetres > 0 ? Double(candidates - trueCandidates) / (smoothMetres / 10_000) : 0
    }

    /// The two scores together.
    public static func + (a: ObstacleScore, b: ObstacleScore) -> ObstacleScore {
        var sum = a
        sum.candidates += b.candidates
        sum.trueCandidates += b.trueCandidates
        sum.obstacles += b.obstacles
        sum.found += b.found
        sum.rightKind += b.rightKind
        sum.smoothMetres += b.smoothMetres
        return sum
    }
}
