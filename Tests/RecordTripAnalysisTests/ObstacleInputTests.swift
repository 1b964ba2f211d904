import Geo
import RecordTripAnalysis
import RoadNetwork
import Testing

/// Any input gives a defined result and no crash (issue 19, "Bad input"), and the placement on the matched route.
@Suite struct ObstacleInputTests {
    static let ride = ObstacleRideFixtures.ride(seed: 110, duration: 600)
    static let clean = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes)

    @Test("nothing in, nothing out: no samples, no fixes, one of each")
    func emptyInputs() {
        #expect(ObstacleDetector.detect(acceleration: [], fixes: []).isEmpty)
        #expect(ObstacleDetector.detect(acceleration: Self.ride.acceleration, fixes: []).isEmpty)
        #expect(ObstacleDetector.detect(acceleration: [], fixes: Self.ride.fixes).isEmpty)
        #expect(ObstacleDetector.detect(acceleration: [Self.ride.acceleration[0]], fixes: [Self.ride.fixes[0]]).isEmpty)
    }

    @Test("NaN, infinite and absurd samples and fixes are ignored: the result is the clean ride's")
    func nonFiniteValuesAreIgnored() {
        var samples = Self.ride.acceleration
        var fixes = Self.ride.fixes
        for index in stride(from: 7, to: samples.count, by: 997) {
            samples.insert(AccelerationSample(time: samples[index].time, x: .nan, y: 1, z: 9), at: index)
        }
        samples.append(AccelerationSample(time: .infinity, x: 0, y: 0, z: 9.81))
        samples.append(AccelerationSample(time: samples[100].time, x: 1e300, y: -1e300, z: 9.81))
        fixes.insert(GPSFix(time: fixes[3].time + 0.5, latitude: .nan, longitude: 15.6), at: 4)
        fixes.append(GPSFix(time: .nan, latitude: 48, longitude: 15))
        #expect(ObstacleDetector.detect(acceleration: samples, fixes: fixes) == Self.clean)
    }

    @Test("samples and fixes out of order give the same candidates as in order")
    func unsortedInputIsSorted() {
        var random = SeededRandom(seed: 5)
        let samples = Self.ride.acceleration.shuffled(using: &random)
        let fixes = Self.ride.fixes.shuffled(using: &random)
        #expect(ObstacleDetector.detect(acceleration: samples, fixes: fixes) == Self.clean)
    }

    @Test("duplicated timestamps (every sample and fix twice) find the same obstacles")
    func duplicatedTimestamps() {
        let samples = Self.ride.acceleration.flatMap { [$0, $0] }
        let fixes = Self.ride.fixes.flatMap { [$0, $0] }
        let found = ObstacleDetector.detect(acceleration: samples, fixes: fixes)
        #expect(found.map(\.kind) == Self.clean.map(\.kind))
        #expect(zip(found, Self.clean).allSatisfy { abs($0.time - $1.time) < 0.05 })
    }

    @Test("fixes without a reported speed: the speed comes from their positions")
    func speedFromPositions() {
        let fixes = Self.ride.fixes.map { fix in
            var copy = fix
            copy.speed = nil
            return copy
        }
        let found = ObstacleDetector.detect(acceleration: Self.ride.acceleration, fixes: fixes)
        #expect(ObstacleScore(found, on: Self.ride).recall >= 0.9)
        #expect(ObstacleScore(found, on: Self.ride).precision >= 0.9)
    }

    @Test("5,000,000 samples (the upload limit) are processed without a crash")
    func fiveMillionSamples() {
        let samples = (0..<5_000_000).map { AccelerationSample(time: Double($0) * 0.01, x: 0.3, y: 9.7, z: 1.2) }
        let fixes = stride(from: 0.0, through: 50_000, by: 10).map {
            GPSFix(time: $0, latitude: 48.41 + $0 * 4e-7, longitude: 15.6, speed: 5)
        }
        #expect(ObstacleDetector.detect(acceleration: samples, fixes: fixes).isEmpty)
    }

    @Test("with a matched route the candidates are placed on it")
    func placedOnTheRoute() throws {
        // The route: the fixes moved 20 m east, so every candidate must move onto it.
        let route = Self.ride.fixes.map { Coordinate2D(latitude: $0.latitude, longitude: $0.longitude + 0.00027) }
        let line = Polyline(try route.map { try Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
        let placed = ObstacleDetector.detect(acceleration: Self.ride.acceleration, fixes: Self.ride.fixes, route: route)
        #expect(placed.map(\.time) == Self.clean.map(\.time))
        #expect(!placed.isEmpty)
        var offRoute = 0.0
        for (onRoute, free) in zip(placed, Self.clean) {
            let point = try Coordinate(latitude: onRoute.latitude, longitude: onRoute.longitude)
            #expect(try #require(line.projection(of: point)).distance < 0.5)
            let before = try Coordinate(latitude: free.latitude, longitude: free.longitude)
            offRoute += try #require(line.projection(of: before)).distance
        }
        #expect(offRoute / Double(placed.count) > 5)
    }
}
