extension BoundingBox {
    /// Parses a `?bbox=minLng,minLat,maxLng,maxLat` query value: west, south, east, north in
    /// degrees, the order of RFC 7946 and of most map clients.
    ///
    /// Spaces around numbers are allowed. `minLng > maxLng` is a box across the antimeridian.
    /// - Throws: `BoundingBoxError` for anything but four numbers forming a valid box.
    public init(queryValue: some StringProtocol) throws(BoundingBoxError) {
        let parts = queryValue.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .wrongComponentCount(parts.count) }
        var values: [Double] = []
        for (index, part) in parts.enumerated() {
            let trimmed = part.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
            guard let value = Double(String(trimmed)) else { throw .notANumber(index: index) }
            values.append(value)
        }
        try self.init(west: values[0], south: values[1], east: values[2], north: values[3])
    }

    /// The box as a `minLng,minLat,maxLng,maxLat` query value, the inverse of `init(queryValue:)`.
    public var queryValue: String {
        "\(west),\(south),\(east),\(north)"
    }
}
