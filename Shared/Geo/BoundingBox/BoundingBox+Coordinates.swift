extension BoundingBox {
    /// The smallest box containing every coordinate, or nil when there are none.
    ///
    /// "Smallest" includes longitude: points at 179° and −179° give a 2°-wide box across the
    /// antimeridian. The box leaves out the widest empty stretch of longitude between the points.
    public init?(covering coordinates: some Sequence<Coordinate>) {
        var south = Double.infinity
        var north = -Double.infinity
        var longitudes: [Double] = []
        for coordinate in coordinates {
            south = min(south, coordinate.latitude)
            north = max(north, coordinate.latitude)
            longitudes.append(coordinate.longitude)
        }
        guard let westmost = longitudes.min() else { return nil }
        longitudes.sort()
        // Start with the gap across the antimeridian, which gives an ordinary box; an inner gap
        // must be strictly wider to make the box cross the antimeridian instead.
        var west = westmost
        var east = longitudes[longitudes.count - 1]
        var widestGap = west + 360 - east
        for (left, right) in zip(longitudes, longitudes.dropFirst()) where right - left > widestGap {
            widestGap = right - left
            west = right
            east = left
        }
        self.init(computedWest: west, south: south, east: east, north: north)
    }
}
