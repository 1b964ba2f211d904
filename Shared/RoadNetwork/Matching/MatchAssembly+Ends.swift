import Foundation

/// Where a matched piece starts and ends, from the fixes around each end rather than from the first and last fix alone.
///
/// The Viterbi path puts a piece's first state wherever the first fix projects: with σ 10 m of noise, a ride that
/// starts a few metres past a junction often begins on the crossing street, and the whole shape segment it lies on
/// counts as ridden (up to ~100 m). The first few fixes say better where the rider was at the first fix's time: each
/// fix's place along the piece, less the distance ridden since (its reported speeds, integrated), is an estimate of
/// the start; their mean has about σ / √n of noise instead of σ. Without reported speeds, the start is the intercept
/// of a straight line fitted to the fixes' places over time. The end likewise, backwards from the last fix. A piece is
/// trimmed to the estimate, or extended along its first (last) edge to it — never onto an edge it did not ride, and
/// never past its second (second-to-last) matched fix.
extension MatchAssembly {
    /// Fixes used at each end of a piece: at most ``MapMatchRules/endFixes``, within this many seconds of the end's fix.
    static let endWindow = 30.0
    /// A reported speed below this (m/s) counts as standing: a standing phone reports its Doppler noise as a speed,
    /// which integrated over the window would move the estimate by metres.
    static let standingSpeed = 1.0

    /// One point of a piece's polyline: WGS 84 degrees and metres along the piece (0 at the first stretch's start).
    struct PolylinePoint {
        var latitude: Double
        var longitude: Double
        var offset: Double
    }

    /// `travels` trimmed or extended at both ends to where the fixes around each end put the rider, and the metres the
    /// start moved forward by (negative: extended backwards), by which every step's offset must be shifted.
    func refinedEnds(_ travels: [MatchedTravel], steps: ClosedRange<Int>, chosen: [Int], offsets: [Double]) -> (travels: [MatchedTravel], shift: Double) {
        let matched = steps.filter { chosen[$0] >= 0 }
        guard transitions.rules.endFixes > 0, matched.count >= 2, let first = travels.first, let last = travels.last else { return (travels, 0) }
        let total = travels.reduce(0) { $0 + $1.length }
        let line = polyline(travels)
        let firstObservation = lattice.observations[matched[0]], lastObservation = lattice.observations[matched[matched.count - 1]]
        var start = 0.0, end = total
        // The fixes of the window project onto the stretch up to the first matched fix after it (from the last one
        // before it), with two search radii to spare: not onto a later part of a ride that comes back the same way.
        let firstTime = fixes[firstObservation].time, lastTime = fixes[lastObservation].time
        let after = matched.first { fixes[lattice.observations[$0]].time > firstTime + Self.endWindow } ?? matched[matched.count - 1]
        let before = matched.last { fixes[lattice.observations[$0]].time < lastTime - Self.endWindow } ?? matched[0]
        // Bounds: back to the first edge's start (forward to the last edge's end), and never past the second
        // (second-to-last) matched fix's place.
        let secondOffset = offsets[matched[1]], penultimateOffset = offsets[matched[matched.count - 2]]
        if let estimate = estimate(from: firstObservation, forwards: true, line: line,
                                   limit: min(total, offsets[after] + 2 * lattice.radii[after])) {
            start = min(max(estimate, -first.from), secondOffset)
        }
        let lastEdgeRest = graph.edgeLengths[last.edge] - last.to
        if let estimate = estimate(from: lastObservation, forwards: false, line: line,
                                   limit: max(0, offsets[before] - 2 * lattice.radii[before])) {
            end = max(min(estimate, total + max(lastEdgeRest, 0)), penultimateOffset)
        }
        guard end > start else { return (travels, 0) }
        return (trimmed(travels, start: start, end: end, total: total), start)
    }

    /// Where the rider was, along the piece, at the time of fix `anchor`: from up to ``MapMatchRules/endFixes`` fixes from it on
    /// (`forwards`) or back, within ``endWindow`` seconds, projected onto the polyline's stretch up to `limit` metres
    /// (forwards) or from `limit` on (backwards). `nil` with fewer than 3 usable fixes.
    private func estimate(from anchor: Int, forwards: Bool, line: [PolylinePoint], limit: Double) -> Double? {
        let anchorTime = fixes[anchor].time
        var places: [(time: Double, offset: Double, speed: Double?)] = []
        var number = anchor
        while number >= 0, number < fixes.count, places.count < transitions.rules.endFixes {
            let fix = fixes[number], isAnchor = number == anchor
            number += forwards ? 1 : -1
            guard MatchLattice.isValid(fix) else { continue }
            let elapsed = forwards ? fix.time - anchorTime : anchorTime - fix.time
            if elapsed > Self.endWindow { break }
            guard elapsed >= 0 else { continue }
            let sigma = transitions.rules.sigma(accuracy: fix.accuracy)
            guard let (offset, distance) = project(fix, on: line, within: forwards ? (-Double.infinity)...limit : limit...Double.infinity),
                  distance <= 3 * sigma else {
                // The ridden metres are counted from the anchor's own place: without it, no estimate.
                if isAnchor { return nil }
                continue
            }
            let speed = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? ($0 < Self.standingSpeed ? 0 : $0) : nil }
            places.append((fix.time, offset, speed))
        }
        guard places.count >= 3 else { return nil }
        if places.allSatisfy({ $0.speed != nil }) {
            // Each place less the metres ridden between the anchor and it (trapezoids of the reported speeds).
            var ridden = 0.0, sum = places[0].offset
            for k in 1..<places.count {
                ridden += 0.5 * (places[k - 1].speed! + places[k].speed!) * abs(places[k].time - places[k - 1].time)
                sum += places[k].offset + (forwards ? -ridden : ridden)
            }
            return sum / Double(places.count)
        }
        // No speeds: the intercept at the anchor's time of the least-squares line through (time, place).
        let n = Double(places.count)
        let meanTime = places.reduce(0) { $0 + ($1.time - anchorTime) } / n
        let meanOffset = places.reduce(0) { $0 + $1.offset } / n
        var sxx = 0.0, sxy = 0.0
        for place in places {
            let dt = place.time - anchorTime - meanTime
            sxx += dt * dt
            sxy += dt * (place.offset - meanOffset)
        }
        guard sxx > 0 else { return meanOffset }
        return meanOffset - sxy / sxx * meanTime
    }

    /// The piece's polyline: each stretch's start, the shape points inside it and its end, with metres along the piece.
    func polyline(_ travels: [MatchedTravel]) -> [PolylinePoint] {
        var line: [PolylinePoint] = []
        var before = 0.0
        for travel in travels {
            let shape = graph.travelShape(of: travel.edge, reversed: travel.reversed)
            let to = max(travel.to, travel.from)
            func add(_ point: Coordinate2D, at position: Double) {
                line.append(PolylinePoint(latitude: point.latitude, longitude: point.longitude, offset: before + position - travel.from))
            }
            add(graph.point(at: travel.from, on: shape), at: travel.from)
            for (k, position) in shape.positions.enumerated() where position > travel.from && position < to {
                add(Coordinate2D(latitude: graph.shapeLatitudes[shape.points[k]], longitude: graph.shapeLongitudes[shape.points[k]]), at: position)
            }
            add(graph.point(at: to, on: shape), at: to)
            before += travel.length
        }
        return line
    }

    /// The nearest point to `fix` on the polyline's segments that lie within `range` (metres along the piece): its
    /// offset and its distance from the fix; `nil` when no segment does. Measured in snapping's local plane at the fix.
    func project(_ fix: MatchObservation, on line: [PolylinePoint], within range: ClosedRange<Double>) -> (offset: Double, distance: Double)? {
        let frame = SnapFrame(latitude: fix.latitude, longitude: fix.longitude)
        let (xScale, metresPerDegree) = (frame.scaleLongitude, frame.scaleLatitude)
        var best: (offset: Double, distance: Double)?
        for k in line.indices.dropLast() where line[k + 1].offset >= range.lowerBound && line[k].offset <= range.upperBound {
            let a = line[k], b = line[k + 1]
            let ax = (a.longitude - fix.longitude) * xScale, ay = (a.latitude - fix.latitude) * metresPerDegree
            let bx = (b.longitude - fix.longitude) * xScale, by = (b.latitude - fix.latitude) * metresPerDegree
            let dx = bx - ax, dy = by - ay
            let squared = dx * dx + dy * dy
            let t = squared > 0 ? min(max(-(ax * dx + ay * dy) / squared, 0), 1) : 0
            let (px, py) = (ax + t * dx, ay + t * dy)
            let distance = (px * px + py * py).squareRoot()
            let offset = min(max(a.offset + t * (b.offset - a.offset), range.lowerBound), range.upperBound)
            if best == nil || distance < best!.distance { best = (offset, distance) }
        }
        return best
    }

    /// `travels` cut to `start...end` metres along them (`total` long); a negative `start` extends the first stretch
    /// backwards on its edge, an `end` past `total` the last one forwards. Stretches left with no length are dropped
    /// (all of them never: then the original).
    func trimmed(_ travels: [MatchedTravel], start: Double, end: Double, total: Double) -> [MatchedTravel] {
        var result: [MatchedTravel] = []
        var before = 0.0
        for (index, travel) in travels.enumerated() {
            var piece = travel
            let length = travel.length
            if index == 0 && start < 0 { piece.from = max(travel.from + start, 0) }
            if index == travels.count - 1 && end > total { piece.to = min(travel.to + (end - total), graph.edgeLengths[travel.edge]) }
            if start > before { piece.from = max(piece.from, travel.from + min(start - before, length)) }
            if end < before + length { piece.to = min(piece.to, travel.from + max(end - before, 0)) }
            before += length
            if piece.length > 0 { result.append(piece) }
        }
        return result.isEmpty ? travels : result
    }
}
