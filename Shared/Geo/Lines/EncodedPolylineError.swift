/// Why a string is not a valid encoded polyline. Offsets count UTF-8 bytes from the start.
public enum EncodedPolylineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte at `offset` is outside the alphabet `?` (63) … `~` (126).
    case invalidCharacter(offset: Int)
    /// The string ends at `offset` in the middle of a value, or after a latitude with no longitude.
    case truncated(offset: Int)
    /// The value ending at `offset` has more 5-bit chunks than any coordinate delta needs.
    case valueTooLong(offset: Int)
    /// The coordinate at `index` decodes to a latitude or longitude out of range.
    case coordinateOutOfRange(index: Int, CoordinateError)

    /// A sentence for logs and problem details.
    public var description: String {
        switch self {
        case .invalidCharacter(let offset): "invalid character at byte \(offset)"
        case .truncated(let offset): "polyline ends in the middle of a coordinate at byte \(offset)"
        case .valueTooLong(let offset): "value ending at byte \(offset) is too long"
        case .coordinateOutOfRange(let index, let error): "coordinate \(index): \(error)"
        }
    }
}
