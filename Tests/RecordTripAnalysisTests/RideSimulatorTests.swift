import RecordTripAnalysis
import Testing

/// The ride simulator is deterministic and makes what it says it makes.
@Suite struct RideSimulatorTests {
    @Test("a seed is a ride: the same seed gives the same samples, another seed another ride")
    func deterministic() {
        var settings = RideSimulator.Settings(seed: 42)
        settings.duration = 120
        let a = RideSimulator.simulate(settings)
        let b = RideSimulator.simulate(settings)
        settings.seed = 43
        let c = RideSimulator.simulate(settings)
        #expect(a.acceleration == b.acceleration && a.fixes == b.fixes)
        #expect(a.acceleration != c.acceleration)
    }

    @Test("sample and fix counts follow the rates; at rest the phone reads 1 g whatever its orientation")
    func ratesAndGravity() {
        var settings = RideSimulator.Settings(seed: 3)
        settings.duration = 60
        settings.sampleRate = 50
        let ride = RideSimulator.simulate(settings)
        #expect(ride.acceleration.count == 3_000)
        #expect(ride.fixes.count == 60)
        let first = ride.acceleration[0]
        let magnitude = (first.x * first.x + first.y * first.y + first.z * first.z).squareRoot()
        #expect(abs(magnitude - 9.81) < 0.5)
    }

    @Test("the obstacles lie inside the ride, at riding speed, at least 60 m apart in time order")
    func obstaclesAreWellPlaced() {
        let ride = ObstacleRideFixtures.ride(seed: 111)
        let start = ride.acceleration[0].time, end = ride.acceleration[ride.acceleration.count - 1].time
        #expect(ride.obstacles.count >= 3)
        for obstacle in ride.obstacles {
            #expect(obstacle.start >= start && obstacle.end <= end)
            #expect(obstacle.speed >= 3)
        }
        for (a, b) in zip(ride.obstacles, ride.obstacles.dropFirst()) {
            #expect(b.time > a.end)
            #expect(ObstacleTestGeometry.metres(a.latitude, a.longitude, b.latitude, b.longitude) >= 30)
        }
        #expect(ride.smoothDistance <= ride.distance && ride.smoothDistance > 0.5 * ride.distance)
    }
}
