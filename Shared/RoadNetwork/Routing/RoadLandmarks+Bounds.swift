extension RoadLandmarks {
    /// One end of the bounds a search computes many times, decoded once: for every column the distance's lower and
    /// upper end (its step and the next, times the unit; `.infinity` where unreachable).
    /// `active` lists the landmarks its bounds use (all by default; any subset still gives a lower bound).
    struct Anchor {
        var lower: [Double]
        var upper: [Double]
        var active: [Int]
    }

    /// The decoded row of `vertex`, its bounds using the landmarks `active` (all when `nil`).
    func anchor(_ vertex: Int, active: [Int]? = nil) -> Anchor {
        let width = 2 * count
        var anchor = Anchor(lower: [Double](repeating: .infinity, count: width), upper: [Double](repeating: .infinity, count: width),
                            active: active ?? Array(0..<count))
        for column in 0..<width where steps[vertex * width + column] != Self.unreachable {
            let step = Double(steps[vertex * width + column])
            anchor.lower[column] = step * units[column]
            anchor.upper[column] = (step + 1) * units[column]
        }
        return anchor
    }

    /// The `wanted` landmarks that bound d(s, t) best, strongest first — Goldberg & Werneck's *active landmarks*: a
    /// search between s and t gains little from the landmarks that bound its own ends weakly, and pays for every one
    /// on every vertex it touches. A landmark that proves t unreachable from s ranks first.
    ///
    /// The alternatives' two trees use ``activeCount`` of them: each tree covers most of the stretch ellipse, where the
    /// bound's quality matters little and its cost on every vertex touched a lot.
    func activeLandmarks(from s: Int, to t: Int, count wanted: Int) -> [Int] {
        guard wanted < count else { return Array(0..<count) }
        let single = (0..<count).map { i in (bound: bound(from: s, to: anchor(t, active: [i])), landmark: i) }
        return single.sorted { ($0.bound, $1.landmark) > ($1.bound, $0.landmark) }.prefix(wanted).map(\.landmark)
    }

    /// How many active landmarks the alternatives' trees use: 4 (Helsinki's best + 2 alternatives, 1,000 pairs: the
    /// trees settle 4 % more vertices and take about a quarter less time than with all 16).
    static let activeCount = 4

    /// Bounds are shrunk by this factor, so that rounding in their subtraction cannot lift them above a distance.
    static let shrink = 1 - 1e-12

    /// A lower bound on the weight from `v` to the anchored vertex `t` under any overlay; `.infinity` when `v` cannot
    /// reach `t` at all (a landmark reaches `v` but not `t`, or `t` reaches a landmark `v` does not).
    func bound(from v: Int, to t: Anchor) -> Double {
        let k = count
        var bound = 0.0
        return steps.withUnsafeBufferPointer { steps -> Double in
            units.withUnsafeBufferPointer { units -> Double in
                let row = v * 2 * k
                for i in t.active {
                    let landmarkToV = steps[row + i]  // d(L, t) − d(L, v)
                    if landmarkToV != Self.unreachable {
                        guard t.lower[i].isFinite else { return .infinity }
                        bound = max(bound, t.lower[i] - (Double(landmarkToV) + 1) * units[i])
                    }
                    let vToLandmark = steps[row + k + i]  // d(v, L) − d(t, L)
                    if vToLandmark != Self.unreachable {
                        if t.upper[k + i].isFinite { bound = max(bound, Double(vToLandmark) * units[k + i] - t.upper[k + i]) }
                    } else if t.upper[k + i].isFinite {
                        return .infinity
                    }
                }
                return bound * Self.shrink
            }
        }
    }

    /// A lower bound on the weight from the anchored vertex `s` to `v` under any overlay; `.infinity` when `s` cannot
    /// reach `v` at all.
    func bound(from s: Anchor, to v: Int) -> Double {
        let k = count
        var bound = 0.0
        return steps.withUnsafeBufferPointer { steps -> Double in
            units.withUnsafeBufferPointer { units -> Double in
                let row = v * 2 * k
                for i in s.active {
                    let landmarkToV = steps[row + i]  // d(L, v) − d(L, s)
                    if landmarkToV != Self.unreachable {
                        if s.upper[i].isFinite { bound = max(bound, Double(landmarkToV) * units[i] - s.upper[i]) }
                    } else if s.upper[i].isFinite {
                        return .infinity
                    }
                    let vToLandmark = steps[row + k + i]  // d(s, L) − d(v, L)
                    if vToLandmark != Self.unreachable {
                        guard s.lower[k + i].isFinite else { return .infinity }
                        bound = max(bound, s.lower[k + i] - (Double(vToLandmark) + 1) * units[k + i])
                    }
                }
                return bound * Self.shrink
            }
        }
    }

    /// What is wrong with landmarks read from storage for a graph of `vertexCount` vertices, or `nil`: sizes, vertex
    /// indexes, units, and each landmark's distance to itself (0).
    func problem(vertexCount: Int) -> String? {
        let width = 2 * count
        guard count <= Self.maximumCount, units.count == width, steps.count == vertexCount * width else {
            return "landmark arrays differ in length"
        }
        guard vertices.allSatisfy({ (0..<Int32(clamping: vertexCount)).contains($0) }), Set(vertices).count == count else {
            return "a landmark names a missing vertex"
        }
        guard units.allSatisfy({ $0.isFinite && $0 > 0 }) else { return "a landmark unit is not a positive number" }
        for (i, landmark) in vertices.enumerated() where steps[Int(landmark) * width + i] != 0 || steps[Int(landmark) * width + count + i] != 0 {
            return "a landmark is not at distance 0 from itself"
        }
        return nil
    }
}
