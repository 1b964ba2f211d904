import Foundation

/// How the phone sits relative to the world (east, north, up): a unit quaternion rotating phone-frame vectors into the
/// world frame. Test and benchmark support for the ride simulator; also lets a test turn a recorded ride's samples.
public struct PhoneOrientation: Sendable, Hashable {
    /// The quaternion's scalar and vector parts (unit length).
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    /// The quaternion `w + xi + yj + zk`, normalised.
    public init(w: Double, x: Double, y: Double, z: Double) {
        let norm = (w * w + x * x + y * y + z * z).squareRoot()
        (self.w, self.x, self.y, self.z) = norm > 0 ? (w / norm, x / norm, y / norm, z / norm) : (1, 0, 0, 0)
    }

    /// Flat on its back, screen up, top pointing north.
    public static let flat = PhoneOrientation(w: 1, x: 0, y: 0, z: 0)

    /// A rotation of `degrees` about `axis` (any length).
    public init(axis: (x: Double, y: Double, z: Double), degrees: Double) {
        let half = degrees * .pi / 360
        let norm = max((axis.x * axis.x + axis.y * axis.y + axis.z * axis.z).squareRoot(), 1e-12)
        let s = sin(half) / norm
        self.init(w: cos(half), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// Uniformly random over all orientations (Shoemake 1992).
    public static func random(using random: inout SeededRandom) -> PhoneOrientation {
        let u1 = random.uniform(0...1), u2 = random.uniform(0...1), u3 = random.uniform(0...1)
        let a = (1 - u1).squareRoot(), b = u1.squareRoot()
        return PhoneOrientation(w: a * sin(2 * .pi * u2), x: a * cos(2 * .pi * u2), y: b * sin(2 * .pi * u3),
                                z: b * cos(2 * .pi * u3))
    }

    /// This orientation followed by `other` (applied in the world frame).
    public func then(_ other: PhoneOrientation) -> PhoneOrientation {
        let (a, b) = (other, self)
        return PhoneOrientation(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                                x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                                y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                                z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// Spherical interpolation: `self` at 0, `other` at 1, along the shorter arc.
    public func slerp(to other: PhoneOrientation, _ t: Double) -> PhoneOrientation {
        var (ow, ox, oy, oz) = (other.w, other.x, other.y, other.z)
        var cosine = w * ow + x * ox + y * oy + z * oz
        if cosine < 0 { (ow, ox, oy, oz, cosine) = (-ow, -ox, -oy, -oz, -cosine) }
        guard cosine < 0.9995 else {
            return PhoneOrientation(w: w + (ow - w) * t, x: x + (ox - x) * t, y: y + (oy - y) * t, z: z + (oz - z) * t)
        }
        let angle = acos(cosine)
        let (p, q) = (sin((1 - t) * angle) / sin(angle), sin(t * angle) / sin(angle))
        return PhoneOrientation(w: p * w + q * ow, x: p * x + q * ox, y: p * y + q * oy, z: p * z + q * oz)
    }

    /// A world-frame vector as the phone's sensor sees it (the inverse rotation).
    public func phoneFrame(_ v: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        PhoneOrientation(w: w, x: -x, y: -y, z: -z).rotate(v)
    }

    /// `v` rotated by this orientation (phone frame to world frame).
    public func rotate(_ v: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        let tx = 2 * (y * v.z - z * v.y), ty = 2 * (z * v.x - x * v.z), tz = 2 * (x * v.y - y * v.x)
        return (v.x + w * tx + (y * tz - z * ty), v.y + w * ty + (z * tx - x * tz), v.z + w * tz + (x * ty - y * tx))
    }

    /// The sample as a phone turned by this rotation (relative to how it was held) would have recorded it.
    public func rotate(_ sample: AccelerationSample) -> AccelerationSample {
        let turned = phoneFrame((sample.x, sample.y, sample.z))
        return AccelerationSample(time: sample.time, x: turned.x, y: turned.y, z: turned.z)
    }
}
