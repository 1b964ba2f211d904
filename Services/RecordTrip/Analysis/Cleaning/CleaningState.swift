/// The cleaner's pass over the fixes: the kept track, the fixes held back because the kept track cannot reach them, and
/// the counts. Every fix is appended and removed at most once, and each decision looks at most
/// ``CleaningRules/confirmingFixes`` fixes back, so a pass is O(n).
struct CleaningState {
    let rules: CleaningRules
    private(set) var kept: [GPSFix] = []
    private(set) var counts = CleaningCounts()
    /// Consecutive fixes, each reachable from the one before, that the kept track cannot reach.
    private var held: [GPSFix] = []
    /// Why each held fix was held: `outOfOrder` (earlier than the kept track's last fix) or `impossibleJump`.
    private var heldReasons: [WritableKeyPath<CleaningCounts, Int>] = []

    init(rules: CleaningRules) {
        self.rules = rules
        kept.reserveCapacity(256)
    }

    mutating func consider(_ fix: GPSFix) {
        if let reason = TrackCleaner.screen(fix, rules: rules) {
            counts[keyPath: reason] += 1
            return
        }
        guard let last = kept.last else {
            kept.append(fix)
            return
        }
        if fix.time == last.time || fix.time == held.last?.time {
            counts.duplicate += 1
        } else if follows(fix, after: last) {
            dropHeld()
            kept.append(fix)
        } else {
            hold(fix, reason: fix.time < last.time ? \.outOfOrder : \.impossibleJump)
        }
    }

    /// Drops what is still held at the end of the upload.
    mutating func finish() {
        dropHeld()
    }

    private func follows(_ fix: GPSFix, after previous: GPSFix) -> Bool {
        fix.time > previous.time && TrackCleaner.reachable(from: previous, to: fix, rules: rules)
    }

    private mutating func hold(_ fix: GPSFix, reason: WritableKeyPath<CleaningCounts, Int>) {
        if let previous = held.last, !follows(fix, after: previous) { dropHeld() }
        held.append(fix)
        heldReasons.append(reason)
        if held.count >= max(1, rules.confirmingFixes) { believeHeld() }
    }

    /// Enough consistent fixes disagree with the kept track. If removing at most `confirmingFixes − 1` kept fixes from
    /// its end lets them follow, those kept fixes were the outliers; otherwise, if time moved on, the rider really went
    /// elsewhere (a gap in recording, a train) and both parts are kept; if time went back, the held fixes are dropped.
    private mutating func believeHeld() {
        let first = held[0]
        let limit = min(kept.count, max(0, rules.confirmingFixes - 1))
        for removing in 0...limit {
            let remaining = kept.count - removing
            guard remaining == 0 || follows(first, after: kept[remaining - 1]) else { continue }
            for outlier in kept[remaining...] {
                if first.time <= outlier.time { counts.outOfOrder += 1 } else { counts.impossibleJump += 1 }
            }
            kept.removeLast(removing)
            acceptHeld()
            return
        }
        if let last = kept.last, first.time > last.time {
            acceptHeld()
        } else {
            dropHeld()
        }
    }

    private mutating func acceptHeld() {
        kept.append(contentsOf: held)
        held.removeAll(keepingCapacity: true)
        heldReasons.removeAll(keepingCapacity: true)
    }

    private mutating func dropHeld() {
        for reason in heldReasons { counts[keyPath: reason] += 1 }
        held.removeAll(keepingCapacity: true)
        heldReasons.removeAll(keepingCapacity: true)
    }
}
