extension BoundingBox: Codable {
    /// Decodes an RFC 7946 `bbox` member: `[west, south, east, north]`, or the 3-D form
    /// `[west, south, minAltitude, east, north, maxAltitude]` whose altitudes are read and dropped,
    /// since Waypoint's extents are two-dimensional.
    ///
    /// Invalid boxes fail with `DecodingError.dataCorrupted` whose underlying error is a `BoundingBoxError`.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var values: [Double] = []
        while !container.isAtEnd {
            values.append(try container.decode(Double.self))
        }
        do {
            switch values.count {
            case 4: try self.init(west: values[0], south: values[1], east: values[2], north: values[3])
            case 6: try self.init(west: values[0], south: values[1], east: values[3], north: values[4])
            default: throw BoundingBoxError.wrongComponentCount(values.count)
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "\(error)",
                underlyingError: error
            ))
        }
    }

    /// Encodes the RFC 7946 `bbox` member `[west, south, east, north]`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(contentsOf: [west, south, east, north])
    }
}
