import Geo

extension RoadGraph {
    /// The graph as a GeoJSON FeatureCollection for a GIS: one LineString per edge (its shape, `[lng, lat]`), with its
    /// facts as properties — `edge` (index + 1, the pgRouting id), `source`/`target` (OSM node ids), `osm_way_id`,
    /// `name`, `ref`, `highway`, `surface`, `mode` (ride or push), `forward`/`backward` (allowed directions),
    /// `length_m`, `speed_kmh`, `preference`, `weight_forward`/`weight_backward` (equivalent metres, `null` where not
    /// allowed), `cycle_network` and `osm_node_ids`.
    public func geoJSONFeatures() -> FeatureCollection {
        var features: [Feature] = []
        features.reserveCapacity(edgeCount)
        for edge in 0..<edgeCount {
            let positions = shape(of: edge).compactMap { try? Position(longitude: $0.longitude, latitude: $0.latitude) }
            guard let line = try? LineString(positions) else { continue }
            features.append(Feature(id: .number(Double(edge + 1)), geometry: .lineString(line), properties: properties(of: edge)))
        }
        return FeatureCollection(features)
    }

    private func properties(of edge: Int) -> [String: JSONValue] {
        let way = ways[Int(edgeWays[edge])]
        func number(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "edge": .number(Double(edge + 1)),
            "source": .number(Double(vertexNodeIDs[Int(edgeSources[edge])])),
            "target": .number(Double(vertexNodeIDs[Int(edgeTargets[edge])])),
            "osm_way_id": .number(Double(way.osmID)),
            "name": text(way.name), "ref": text(way.ref), "highway": .string(way.use.wayClass), "surface": text(way.use.surface),
            "mode": .string(way.use.mode.rawValue), "forward": .bool(way.use.forward), "backward": .bool(way.use.backward),
            "length_m": .number(edgeLengths[edge]), "speed_kmh": .number(way.use.speed), "preference": .number(way.use.preference),
            "weight_forward": number(edgeForwardWeights[edge]), "weight_backward": number(edgeBackwardWeights[edge]),
            "cycle_network": .bool(way.use.inCycleNetwork),
            "osm_node_ids": .array(shapeNodes(of: edge).map { .number(Double($0)) }),
        ]
    }
}
