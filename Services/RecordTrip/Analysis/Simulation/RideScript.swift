import Foundation

/// The ride before any sensor sees it: speed, heading and distance at every accelerometer sample, the stops and their
/// confounders, the phone's orientation changes, the surface, and the obstacles' signatures (``RideSimulator``).
struct RideScript {
    /// A change of the phone's orientation, eased over `duration` seconds.
    struct Turn {
        var start: Double
        var duration: Double
        var to: PhoneOrientation
    }

    /// The phone shaken in the hand: a sinusoid per phone axis.
    struct Shake {
        var start: Double
        var end: Double
        var amplitude: (Double, Double, Double)
        var frequency: (Double, Double, Double)
    }

    enum Phase {
        case cruising(until: Double)
        case braking(rate: Double)
        case stopped(until: Double)
        case crawling(until: Double, speed: Double)
        case accelerating(rate: Double)
    }

    let settings: RideSimulator.Settings
    let step: Double
    var times: [Double] = []
    var speed: [Double] = []
    var heading: [Double] = []
    var distance: [Double] = []
    var north: [Double] = []
    var east: [Double] = []
    /// Vibration multiplier of the surface: 1 on smooth asphalt, 4–7 on a rough stretch.
    var roughness: [Double] = []
    var signatures: [RideSignature] = []
    var initialOrientation = PhoneOrientation.flat
    var turns: [Turn] = []
    var shakes: [Shake] = []
    var obstacles: [SimulatedObstacle] = []
    var confounders: [SimulatedConfounder] = []
    var smoothDistance = 0.0

    init(settings: RideSimulator.Settings) {
        self.settings = settings
        step = 1 / max(1, settings.sampleRate)
    }

    /// True position at sample `index`, degrees.
    func position(_ index: Int) -> (latitude: Double, longitude: Double) {
        let radius = 6_371_008.8
        let latitude = settings.startLatitude + north[index] / radius * 180 / .pi
        let longitude = settings.startLongitude
            + east[index] / (radius * cos(settings.startLatitude * .pi / 180)) * 180 / .pi
        return (latitude, longitude)
    }

    /// The sample index at `time` (clamped).
    func index(at time: Double) -> Int {
        min(times.count - 1, max(0, Int(((time - settings.startTime) / step).rounded())))
    }

    /// Draws the whole ride: motion first, sample by sample, with the events scheduled as it goes.
    mutating func plan(using random: inout SeededRandom) {
        let count = max(2, Int(settings.duration / step))
        times.reserveCapacity(count)
        initialOrientation = PhoneOrientation.random(using: &random)
        var planner = RidePlanner(settings: settings, orientation: initialOrientation, random: &random)
        for index in 0..<count {
            let time = settings.startTime + Double(index) * step
            planner.advance(to: time, script: &self, index: index, random: &random)
        }
        planner.finish(script: &self)
    }
}
