import Geo
import RoadNetwork

/// The last links: rough stretches and shocks become candidates (shocks inside a rough stretch belong to it), close
/// ones are merged, and each is placed at the interpolated position of its time, on the matched route when given.
enum CandidatePlacement {
    /// A candidate before placement: its time, kind, severity, peak and speed.
    struct Found {
        var time: Double
        var kind: ObstacleCandidate.Kind
        var severity: Double
        var peak: Double
        var speed: Double
    }

    /// Seconds either side of a rough stretch whose shocks are counted as part of it.
    static let stretchMargin = 1.0

    static func candidates(shocks: [ShockEvent], stretches: [RoughnessBlocks.Stretch], vertical: VerticalAcceleration,
                           settings: ObstacleDetectorSettings) -> [Found] {
        var found: [Found] = stretches.map { stretch in
            let peak = largest(vertical, from: stretch.start, to: stretch.end)
            let severity = unit(stretch.rms / (settings.severeRoughRMSPerSpeed * stretch.speed))
            return Found(time: (stretch.start + stretch.end) / 2, kind: .roughSurface, severity: severity, peak: peak,
                         speed: stretch.speed)
        }
        var stretchIndex = 0
        for shock in shocks {
            while stretchIndex < stretches.count, stretches[stretchIndex].end + stretchMargin < shock.time {
                stretchIndex += 1
            }
            if stretchIndex < stretches.count, stretches[stretchIndex].start - stretchMargin <= shock.time { continue }
            let severity = unit(shock.peak / (settings.severeShockPerSpeed * vertical.shockScale * shock.speed))
            found.append(Found(time: shock.time, kind: shock.kind, severity: severity, peak: shock.peak,
                               speed: shock.speed))
        }
        return found.filter { $0.time.isFinite && $0.peak.isFinite && $0.speed.isFinite }.sorted { $0.time < $1.time }
    }

    /// 0…1, and 1 for anything not finite (an overwhelming shock).
    static func unit(_ value: Double) -> Double {
        value.isFinite ? min(1, max(0, value)) : 1
    }

    /// The largest |filtered vertical acceleration| between two times.
    static func largest(_ vertical: VerticalAcceleration, from start: Double, to end: Double) -> Double {
        var low = 0
        var high = vertical.times.count
        while low < high {
            let middle = (low + high) / 2
            if vertical.times[middle] < start { low = middle + 1 } else { high = middle }
        }
        var peak = 0.0
        var index = low
        while index < vertical.times.count, vertical.times[index] <= end {
            peak = max(peak, abs(vertical.filtered[index]))
            index += 1
        }
        return peak
    }

    /// Merged, positioned candidates: neighbours within `mergeTime` or `mergeDistance` become the strongest of them
    /// (a rough stretch absorbs the shocks next to it).
    static func place(_ found: [Found], track: RideTrack, route: [Coordinate2D]?,
                      settings: ObstacleDetectorSettings) -> [ObstacleCandidate] {
        let line = route.map { Polyline($0.compactMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) }) }
        var merged: [(found: Found, position: (latitude: Double, longitude: Double))] = []
        for candidate in found {
            guard let position = track.position(at: candidate.time) else { continue }
            if let last = merged.last, closeEnough(last, (candidate, position), settings: settings) {
                merged[merged.count - 1] = stronger(last, (candidate, position))
                continue
            }
            merged.append((candidate, position))
        }
        return merged.map { entry in
            let placed = onRoute(entry.position, line)
            return ObstacleCandidate(time: entry.found.time, latitude: placed.latitude, longitude: placed.longitude,
                                     kind: entry.found.kind, severity: entry.found.severity, peakMps2: entry.found.peak,
                                     speedMps: entry.found.speed)
        }
    }

    typealias Placed = (found: Found, position: (latitude: Double, longitude: Double))

    static func closeEnough(_ a: Placed, _ b: Placed, settings: ObstacleDetectorSettings) -> Bool {
        if abs(b.found.time - a.found.time) <= settings.mergeTime { return true }
        let metres = RideTrack.metres(a.position.latitude, a.position.longitude, b.position.latitude, b.position.longitude)
        return metres <= settings.mergeDistance
    }

    static func stronger(_ a: Placed, _ b: Placed) -> Placed {
        if a.found.kind == .roughSurface, b.found.kind != .roughSurface { return a }
        if b.found.kind == .roughSurface, a.found.kind != .roughSurface { return b }
        return b.found.peak > a.found.peak ? b : a
    }

    /// The nearest point of the route (Geo's projection), or the position itself without a usable route.
    static func onRoute(_ position: (latitude: Double, longitude: Double), _ line: Polyline?)
        -> (latitude: Double, longitude: Double) {
        guard let line, let point = try? Coordinate(latitude: position.latitude, longitude: position.longitude),
              let projection = line.projection(of: point) else { return position }
        return (projection.point.latitude, projection.point.longitude)
    }
}
