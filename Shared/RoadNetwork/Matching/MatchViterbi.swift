/// The most likely state sequence through a ``MatchLattice`` (Viterbi, costs in nats), cut into pieces wherever the
/// ride cannot go on. A step no state of the last matched step reaches within the route bound is skipped (an outlier:
/// its fix comes back unmatched), up to ``maximumSkippedSteps`` in a row; beyond that, or at a time gap longer than
/// ``MapMatchRules/maximumTimeGap``, the piece ends and a new one starts afresh from the emission costs at the first
/// step it could not reach.
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
        var matrix: [Double] = []
        var (pieceStart, last, step) = (0, 0, 1)
        for state in lattice.stateRange(0) { costs[state] = lattice.states[state].emission }
        while step < lattice.stepCount {
            if advance(from: last, to: step, costs: &costs, back: &back, matrix: &matrix) {
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
            for state in lattice.stateRange(pieceStart) { costs[state] = lattice.states[state].emission }
        }
        finish(pieceStart...last, costs: costs, back: back, path: &path)
        return path
    }

    private func withinTimeGap(_ earlier: Int, _ later: Int) -> Bool {
        fixes[lattice.observations[later]].time - fixes[lattice.observations[earlier]].time <= transitions.rules.maximumTimeGap
    }

    /// Fills the costs and back pointers of `step` from step `earlier`; false when none of its states is reached.
    private func advance(from earlier: Int, to step: Int, costs: inout [Double], back: inout [Int], matrix: inout [Double]) -> Bool {
        guard withinTimeGap(earlier, step) else { return false }
        let gap = lattice.gap(from: earlier, to: step, fixes: fixes, rules: transitions.rules)
        let from = lattice.stateRange(earlier), to = lattice.stateRange(step)
        transitions.fill(&matrix, from: lattice.states[from], to: lattice.states[to], gap: gap)
        var reached = false
        for (j, state) in to.enumerated() {
            var best = Double.infinity, bestFrom = -1
            for (i, previous) in from.enumerated() where costs[previous].isFinite {
                let candidate = costs[previous] + matrix[i * to.count + j]
                if candidate < best { (best, bestFrom) = (candidate, previous) }
            }
            costs[state] = best + lattice.states[state].emission
            back[state] = bestFrom
            if best.isFinite { reached = true }
        }
        return reached
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
