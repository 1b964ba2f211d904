import Foundation

/// SplitMix64 (Steele, Lea & Flood 2014): a small seedable generator, so a simulated ride is the same for the same
/// seed on every machine. Test and benchmark support, not for anything secret.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        uniform(0...1) < p
    }

    /// Standard normal (Box–Muller), times `sigma`.
    public mutating func gaussian(sigma: Double = 1) -> Double {
        let u = max(Double.random(in: 0..<1, using: &self), .leastNonzeroMagnitude)
        let v = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// Exponential with the given mean.
    public mutating func exponential(mean: Double) -> Double {
        -mean * log(max(Double.random(in: 0..<1, using: &self), .leastNonzeroMagnitude))
    }
}
