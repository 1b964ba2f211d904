import Foundation

// Internal unit conversions: the public API speaks degrees, trigonometry speaks radians.
extension Double {
    /// This value, in degrees, converted to radians.
    var radians: Double { self * .pi / 180 }

    /// This value, in radians, converted to degrees.
    var degrees: Double { self * 180 / .pi }
}

/// Maps any longitude in degrees onto −180..<180, so arithmetic across the antimeridian lands on a valid value.
func normalizedLongitude(_ degrees: Double) -> Double {
    let wrapped = remainder(degrees, 360)
    return wrapped >= 180 ? wrapped - 360 : wrapped
}

/// Maps any angle in degrees onto the compass range 0..<360.
func normalizedBearing(_ degrees: Double) -> Double {
    let wrapped = degrees.truncatingRemainder(dividingBy: 360)
    let positive = wrapped < 0 ? wrapped + 360 : wrapped
    // A tiny negative input rounds up to exactly 360 after the addition; 360 is north again.
    return positive >= 360 ? 0 : positive
}
