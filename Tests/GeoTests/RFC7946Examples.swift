/// Example documents copied from RFC 7946 ("The GeoJSON Format", IETF, August 2016).
enum RFC7946Examples {
    /// §1.5, "Example".
    static let featureCollection = """
        {
            "type": "FeatureCollection",
            "features": [{
                "type": "Feature",
                "geometry": {
                    "type": "Point",
                    "coordinates": [102.0, 0.5]
                },
                "properties": {
                    "prop0": "value0"
                }
            }, {
                "type": "Feature",
                "geometry": {
                    "type": "LineString",
                    "coordinates": [
                        [102.0, 0.0],
                        [103.0, 1.0],
                        [104.0, 0.0],
                        [105.0, 1.0]
                    ]
                },
                "properties": {
                    "prop0": "value0",
                    "prop1": 0.0
                }
            }, {
                "type": "Feature",
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [
                        [
                            [100.0, 0.0],
                            [101.0, 0.0],
                            [101.0, 1.0],
                            [100.0, 1.0],
                            [100.0, 0.0]
                        ]
                    ]
                },
                "properties": {
                    "prop0": "value0",
                    "prop1": {
                        "this": "that"
                    }
                }
            }]
        }
        """

    /// Appendix A, one geometry of each type (A.1–A.7).
    static let geometries = [
        #"{"type": "Point", "coordinates": [100.0, 0.0]}"#,
        #"{"type": "LineString", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#,
        """
        {"type": "Polygon", "coordinates": [
            [[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]]
        ]}
        """,
        """
        {"type": "Polygon", "coordinates": [
            [[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]],
            [[100.8, 0.8], [100.8, 0.2], [100.2, 0.2], [100.2, 0.8], [100.8, 0.8]]
        ]}
        """,
        #"{"type": "MultiPoint", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#,
        """
        {"type": "MultiLineString", "coordinates": [
            [[100.0, 0.0], [101.0, 1.0]],
            [[102.0, 2.0], [103.0, 3.0]]
        ]}
        """,
        """
        {"type": "MultiPolygon", "coordinates": [
            [[[102.0, 2.0], [103.0, 2.0], [103.0, 3.0], [102.0, 3.0], [102.0, 2.0]]],
            [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]],
             [[100.2, 0.2], [100.2, 0.8], [100.8, 0.8], [100.8, 0.2], [100.2, 0.2]]]
        ]}
        """,
        """
        {"type": "GeometryCollection", "geometries": [
            {"type": "Point", "coordinates": [100.0, 0.0]},
            {"type": "LineString", "coordinates": [[101.0, 0.0], [102.0, 1.0]]}
        ]}
        """,
    ]

    /// §5.1, the bbox example, with a string id (§3.2) added.
    static let featureWithStringID = """
        {"type": "Feature", "id": "f-1", "bbox": [-10.0, -10.0, 10.0, 10.0],
         "geometry": {"type": "Polygon", "coordinates": [
             [[-10.0, -10.0], [10.0, -10.0], [10.0, 10.0], [-10.0, -10.0]]
         ]},
         "properties": null}
        """

    /// §5, a FeatureCollection with a 3-D bbox.
    static let threeDimensionalBBox = """
        {"type": "FeatureCollection", "bbox": [100.0, 0.0, -100.0, 105.0, 1.0, 0.0], "features": []}
        """

    /// §5.2, a Feature crossing the antimeridian, split in two and boxed across it.
    static let antimeridianFeature = """
        {"type": "Feature", "bbox": [177.0, -20.0, -178.0, -5.0], "properties": {},
         "geometry": {"type": "MultiPolygon", "coordinates": [
             [[[180.0, -5.0], [180.0, -20.0], [177.0, -20.0], [177.0, -5.0], [180.0, -5.0]]],
             [[[-180.0, -20.0], [-180.0, -5.0], [-178.0, -5.0], [-178.0, -20.0], [-180.0, -20.0]]]
         ]}}
        """
}
