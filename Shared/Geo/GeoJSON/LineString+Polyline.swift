extension LineString {
    /// The GeoJSON form of `polyline`, without altitudes.
    /// - Throws: `GeoJSONError.tooFewPositions` when the polyline has fewer than two coordinates.
    public init(_ polyline: Polyline, bbox: BoundingBox? = nil) throws(GeoJSONError) {
        try self.init(polyline.coordinates.map { Position($0) }, bbox: bbox)
    }
}

extension Polyline {
    /// The horizontal path of `lineString`; altitudes are dropped.
    public init(_ lineString: LineString) {
        self.init(lineString.coordinates.map(\.coordinate))
    }
}
