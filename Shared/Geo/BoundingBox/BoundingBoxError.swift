/// Why a set of numbers or a `?bbox=` value is not a `BoundingBox`.
public enum BoundingBoxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value holds this many numbers instead of four (`minLng,minLat,maxLng,maxLat`);
    /// GeoJSON members may also hold six.
    case wrongComponentCount(Int)
    /// The component at this 0-based index is not a decimal number.
    case notANumber(index: Int)
    /// A corner is not a valid coordinate.
    case invalidCorner(CoordinateError)
    /// The southern edge, in degrees, lies north of the northern edge.
    case southAboveNorth(south: Double, north: Double)

    /// A sentence for logs and problem details.
    public var description: String {
        switch self {
        case .wrongComponentCount(let count): "expected minLng,minLat,maxLng,maxLat but found \(count) values"
        case .notANumber(let index): "value \(index + 1) is not a number"
        case .invalidCorner(let error): "invalid corner: \(error)"
        case .southAboveNorth(let south, let north): "south \(south) lies north of north \(north)"
        }
    }
}
