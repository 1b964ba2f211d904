/// The most likely state sequence through a ``MatchLattice`` (Viterbi, costs in nats), cut into pieces wherever the
/// ride cannot go on. A step no state of the last matched step reaches within the route bound is skipped (an outlier:
/// its fix comes back unmatched), up to ``maximumSkippedSteps`` in a row; beyond that, or at a time gap longer than
/// ``MapMatchRules/maximumTimeGap``, the piece ends and a new one starts afresh from the emission costs at the first
/// step it could not reach. A step reached only at a high cost — or not at all — may also be reached past up to
/// ``maximumSkippedSteps`` steps before it, at ``MapMatchRules/outlierCost`` per fix taken for an outlier.
struct MatchViterbi {
    let lattice: MatchLattice
    let fixes: [MatchObservation]
    let transitions: MatchTransitions

    /// Consecutive steps skipped as outliers before the ride is broken instead.
    static let maximumSkippedSteps = 2

    /// The chosen state (an index into the lattice's states) of every step (-1 for a skipped step), and the pieces
    /// as ranges of steps.
    struct Path {
        var chosen: [Int]
        var pieces: [ClosedRange<Int>]
    }

    /// Runs the recursion step by step, backtracking each piece when it ends.
    func run() -> Path {
        var path = Path(chosen: [Int](repeating: -1, count: lattice.stepCount), pieces: [])
        guard lattice.stepCount > 0 else { return path }
        var costs = [Double](repeating: .infinity, count: lattice.states.count)
        var back = [Int](repeating: -1, count: lattice.states.count)
        // Per state, the step of the last outlier skip on its best path (far back: none).
        var skips = [Int](repeating: -1_000_000, count: lattice.states.count)
        var matrix: [Double] = []
        var (pieceStart, last, step) = (0, 0, 1)
        // The steps reached so far in this piece, latest last (for the outlier check).
        var reached = [0]
        for state in lattice.stateRange(0) { costs[state] = lattice.states[state].emission }
        while step < lattice.stepCount {
            let advanced = advance(from: last, to: step, costs: &costs, back: &back, skips: &skips, matrix: &matrix)
            if skipOutliers(before: step, reached: reached, costs: &costs, back: &back, skips: &skips, matrix: &matrix) || advanced {
                reached.append(step)
                (last, step) = (step, step + 1)
                continue
            }
            let broken = step - last > Self.maximumSkippedSteps || !withinTimeGap(last, step)
            if !broken {
                step += 1  // skip the outlier
                continue
            }
            finish(pieceStart...last, costs: costs, back: back, path: &path)
            (pieceStart, last, step) = (last + 1, last + 1, last + 2)
            reached = [pieceStart]
            for state in lattice.stateRange(pieceStart) { costs[state] = lattice.states[state].emission }
        }
        finish(pieceStart...last, costs: costs, back: back, path: &path)
        return path
    }

    private func withinTimeGap(_ earlier: Int, _ later: Int) -> Bool {
        fixes[lattice.observations[later]].time - fixes[lattice.observations[earlier]].time <= transitions.rules.maximumTimeGap
    }

    /// Fills the costs and back pointers of `step` from step `earlier`; false when none of its states is reached.
    /// With a `penalty`, keeps each state's cost where it is already lower (an outlier skip competing with the
    /// transitions found before).
    @discardableResult
    private func advance(from earlier: Int, to step: Int, penalty: Double? = nil, costs: inout [Double], back: inout [Int],
                         skips: inout [Int], matrix: inout [Double]) -> Bool {
        guard withinTimeGap(earlier, step) else { return false }
        let gap = lattice.gap(from: earlier, to: step, fixes: fixes, rules: transitions.rules)
        let from = lattice.stateRange(earlier), to = lattice.stateRange(step)
        transitions.fill(&matrix, from: lattice.states[from], to: lattice.states[to], gap: gap)
        var reached = false
        for (j, state) in to.enumerated() {
            var best = Double.infinity, bestFrom = -1
            for (i, previous) in from.enumerated() where costs[previous].isFinite
                && (penalty == nil || step - skips[previous] > transitions.rules.outlierSpacing) {
                let candidate = costs[previous] + matrix[i * to.count + j]
                if candidate < best { (best, bestFrom) = (candidate, previous) }
            }
            let total = best + (penalty ?? 0) + lattice.states[state].emission
            if penalty != nil && !(total < costs[state]) { continue }
            costs[state] = total
            back[state] = bestFrom
            if bestFrom >= 0 { skips[state] = penalty == nil ? skips[bestFrom] : step }
            if best.isFinite { reached = true }
        }
        return reached
    }

    /// The outlier check after `step` was reached (or not) from the last of `reached`: when its cheapest state costs
    /// more than ``MapMatchRules/outlierCost`` × k over the cheapest of the reached step k + 1 back (k = 1, 2), the k
    /// steps between may be outliers — a fix whose street lies outside its search radius, so that every candidate it
    /// has forces a loop or a detour, or cannot go on at all — and `step` is also reached straight from that earlier
    /// step at that cost per skipped fix. Each state keeps the cheaper way; a skipped step's fix comes back unmatched.
    /// Searched only past the cost, so a ride without such a jump searches nothing more; and only from states whose
    /// best path skipped no fix within ``MapMatchRules/outlierSpacing`` steps: outliers are rare, and a path that needs
    /// them again and again is on the wrong street (a road 20–30 m beside a track the rider took, its fixes skipped
    /// wherever the two part). True when `step` was reached this way.
    private func skipOutliers(before step: Int, reached: [Int], costs: inout [Double], back: inout [Int], skips: inout [Int],
                              matrix: inout [Double]) -> Bool {
        let outlierCost = transitions.rules.outlierCost
        guard outlierCost.isFinite, outlierCost > 0 else { return false }
        func cheapest(_ step: Int, _ costs: [Double]) -> Double { lattice.stateRange(step).lazy.map { costs[$0] }.min() ?? .infinity }
        var current = cheapest(step, costs)
        var rescued = false
        for skipped in 1...Self.maximumSkippedSteps where reached.count > skipped {
            let earlier = reached[reached.count - 1 - skipped]
            let penalty = outlierCost * Double(skipped)
            guard current - cheapest(earlier, costs) > penalty else { continue }
            let wasReached = current.isFinite
            if advance(from: earlier, to: step, penalty: penalty, costs: &costs, back: &back, skips: &skips, matrix: &matrix),
               !wasReached { rescued = true }
            current = cheapest(step, costs)
        }
        return rescued
    }

    /// Backtracks the piece `steps` from its cheapest last state; steps whose states the chain skips stay -1.
    private func finish(_ steps: ClosedRange<Int>, costs: [Double], back: [Int], path: inout Path) {
        guard var state = lattice.stateRange(steps.upperBound).min(by: { (costs[$0], $0) < (costs[$1], $1) }) else { return }
        while state >= 0 {
            let step = lattice.step(of: state)
            path.chosen[step] = state
            state = step > steps.lowerBound ? back[state] : -1
        }
        path.pieces.append(steps)
    }
}
