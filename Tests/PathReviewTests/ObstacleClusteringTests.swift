import Foundation
import PathReview
import ServiceTesting
import Testing

/// Metres per degree of latitude on the mean sphere; the oracle's flat-earth distance (independent of Geo's haversine;
/// at ≤ 50 m the two differ by far less than a millimetre).
private let metresPerDegree = 6_371_008.8 * Double.pi / 180

private func flatMetres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let dy = (a.0 - b.0) * metresPerDegree
    let dx = (a.1 - b.1) * metresPerDegree * cos((a.0 + b.0) / 2 * Double.pi / 180)
    return (dx * dx + dy * dy).squareRoot()
}

/// A point `east`/`north` metres from `origin`.
private func offset(_ origin: (Double, Double), east: Double, north: Double) -> (Double, Double) {
    (origin.0 + north / metresPerDegree, origin.1 + east / (metresPerDegree * cos(origin.0 * Double.pi / 180)))
}

private let krems = (48.4102, 15.6035)
private let start = Date(timeIntervalSince1970: 1_790_000_000)

@Suite("path-review upkeep: obstacle clustering, confidence and fading")
struct ObstacleClusteringTests {
    /// Synthetic ground truth: 40 places at least 200 m apart (a grid, types drawn at random; every third place holds a
    /// second obstacle of another type at the same spot: 54 true obstacles), each seen 1–8 times within 6 m of its place
    /// (so any two sightings of one obstacle are ≤ 12 m apart, inside the 15 m radius), all sightings shuffled.
    @Test("synthetic sightings with known clusters: every true obstacle is exactly one obstacle")
    func knownClusters() {
        var random = SeededGenerator(seed: 20)
        var sightings: [(sighting: ObstacleSighting, truth: Int)] = []
        var truth = 0
        for place in 0..<40 {
            let centre = offset(krems, east: Double(place % 8) * 200, north: Double(place / 8) * 200)
            var types = [PathObstacleType.allCases.randomElement(using: &random)!]
            if place % 3 == 0 { types.append(PathObstacleType.allCases.filter { $0 != types[0] }.randomElement(using: &random)!) }
            for type in types {
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let angle = Double.random(in: 0..<(2 * .pi), using: &random), radius = Double.random(in: 0...6, using: &random)
                    let point = offset(centre, east: radius * cos(angle), north: radius * sin(angle))
                    let seen = start.addingTimeInterval(Double.random(in: 0...86_400, using: &random))
                    sightings.append((ObstacleSighting(type: type, latitude: point.0, longitude: point.1, seenAt: seen), truth))
                }
                truth += 1
            }
        }
        sightings.shuffle(using: &random)
        var open: [OpenObstacle] = [], assigned: [Int: Set<UUID>] = [:]
        for (sighting, label) in sightings {
            let step = ObstacleClustering.add(sighting, to: open, newId: UUID.init)
            open = step.obstacles
            assigned[label, default: []].insert(open[step.index].id)
        }
        #expect(open.count == truth)
        #expect(assigned.values.allSatisfy { $0.count == 1 })
        #expect(Set(assigned.values.map { $0.first! }).count == truth)
        #expect(open.map(\.sightings).reduce(0, +) == sightings.count)
    }

    /// The brute-force oracle: dense random sightings (3 types, 400 in a 120 m square, so many fall near a radius'
    /// edge) replayed by a plain scan with the oracle's own flat-earth distance; every step must choose the same
    /// obstacle (nearest of the same type within 15 m, else new) as the clustering.
    @Test("dense random sightings: each step agrees with a brute-force scan")
    func bruteForceOracle() {
        var random = SeededGenerator(seed: 7)
        let types: [PathObstacleType] = [.pothole, .glass, .gravel]
        var open: [OpenObstacle] = []
        var oracle: [(type: PathObstacleType, point: (Double, Double))] = []
        for index in 0..<400 {
            let point = offset(krems, east: Double.random(in: 0...120, using: &random), north: Double.random(in: 0...120, using: &random))
            let type = types.randomElement(using: &random)!
            let sighting = ObstacleSighting(type: type, latitude: point.0, longitude: point.1, seenAt: start.addingTimeInterval(Double(index)))
            var expected: Int?, nearest = Double.infinity
            for (candidate, obstacle) in oracle.enumerated() where obstacle.type == type {
                let distance = flatMetres(obstacle.point, point)
                if distance <= ObstacleClustering.joinRadiusMetres, distance < nearest { (expected, nearest) = (candidate, distance) }
            }
            let step = ObstacleClustering.add(sighting, to: open, newId: UUID.init)
            #expect(step.index == (expected ?? oracle.count), "sighting \(index)")
            if expected == nil { oracle.append((type, point)) }
            open = step.obstacles
        }
        #expect(open.count == oracle.count && open.count > 30)
    }

    @Test("an obstacle keeps its first sighting's place; another type at the same spot is another obstacle")
    func anchorAndTypes() {
        let here = offset(krems, east: 0, north: 0), near = offset(krems, east: 10, north: 0), far = offset(krems, east: 16, north: 0)
        let open = ObstacleClustering.cluster([
            ObstacleSighting(type: .pothole, latitude: here.0, longitude: here.1, seenAt: start),
            ObstacleSighting(type: .pothole, latitude: near.0, longitude: near.1, seenAt: start),
            ObstacleSighting(type: .pothole, latitude: far.0, longitude: far.1, seenAt: start),
            ObstacleSighting(type: .glass, latitude: here.0, longitude: here.1, seenAt: start),
        ])
        #expect(open.map(\.type) == [.pothole, .pothole, .glass])
        #expect(open.map(\.sightings) == [2, 1, 1])
        #expect(open[0].latitude == here.0 && open[0].longitude == here.1)
    }

    @Test("confidence: 0.5 to start, halving doubt per confirmation, halving every 14 unconfirmed days; fading")
    func confidenceAndFading() {
        let first = ObstacleClustering.cluster([ObstacleSighting(type: .bump, latitude: krems.0, longitude: krems.1, seenAt: start)])[0]
        #expect(first.confidence == ObstacleConfidence.starting)
        #expect(abs(ObstacleConfidence.current(first, at: start.addingTimeInterval(14 * 86_400)) - 0.25) < 1e-12)
        #expect(abs(ObstacleConfidence.confirmed(first, at: start) - 0.75) < 1e-12)
        #expect(abs(ObstacleConfidence.confirmed(first, at: start.addingTimeInterval(14 * 86_400)) - 0.625) < 1e-12)
        let again = ObstacleClustering.cluster([ObstacleSighting(type: .bump, latitude: krems.0, longitude: krems.1,
                                                                 seenAt: start.addingTimeInterval(86_400))], open: [first])
        #expect(again.count == 1 && again[0].sightings == 2 && again[0].lastConfirmedAt == start.addingTimeInterval(86_400))
        #expect(ObstacleConfidence.faded([first], at: start.addingTimeInterval(30 * 86_400 - 1), fadeDays: 30).isEmpty)
        #expect(ObstacleConfidence.faded([first], at: start.addingTimeInterval(30 * 86_400), fadeDays: 30) == [first.id])
        #expect(ObstacleConfidence.faded(again, at: start.addingTimeInterval(30 * 86_400), fadeDays: 30).isEmpty)
    }
}
