import Contracts
import Foundation
import Geo

/// What the map shows at one zoom level: single tours, or clusters of tours whose markers would overlap.
public enum TourMapItem: Sendable, Hashable {
    case tour(TourMarker)
    /// `count` tours around `centre` (their mean position); zooming to `expansionZoom` splits the cluster.
    case cluster(count: Int, centre: LatLng, bounds: BoundingBox, expansionZoom: Int, tourIds: [UUID])
}

/// Grid clustering in Web Mercator pixel space, the approach of map clients (Leaflet.markercluster's grid, Mapbox's
/// supercluster radius): markers falling into one cell of `cellPixels` × `cellPixels` screen pixels at a zoom level
/// become one cluster. From `maximumClusterZoom` on every tour is its own marker.
public enum TourMapClustering {
    public static let cellPixels = 60.0
    public static let maximumClusterZoom = 17
    public static let zoomRange = 0...22
    /// At most this many tour ids are listed per cluster.
    public static let clusterSampleSize = 10

    struct Cell: Hashable {
        var x: Int
        var y: Int
    }

    /// The grid cell of a point at `zoom`.
    static func cell(_ point: LatLng, zoom: Int) -> Cell {
        let scale = 256 * pow(2, Double(zoom)) / cellPixels
        let x = (point.lng + 180) / 360
        let latitude = min(85.051_128, max(-85.051_128, point.lat)) * .pi / 180
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2
        return Cell(x: Int((x * scale).rounded(.down)), y: Int((y * scale).rounded(.down)))
    }

    /// The items at `zoom`, clusters first by size, then single tours by id (a stable order for clients and tests).
    public static func cluster(_ markers: [TourMarker], zoom: Int) -> [TourMapItem] {
        guard zoom < maximumClusterZoom else { return markers.sorted { $0.tourId.uuidString < $1.tourId.uuidString }.map { .tour($0) } }
        var cells: [Cell: [TourMarker]] = [:]
        for marker in markers { cells[cell(marker.start, zoom: zoom), default: []].append(marker) }
        var clusters: [TourMapItem] = [], singles: [TourMarker] = []
        for group in cells.values {
            guard group.count > 1 else {
                singles.append(group[0])
                continue
            }
            let sorted = group.sorted { $0.tourId.uuidString < $1.tourId.uuidString }
            let centre = LatLng(lat: group.map(\.start.lat).reduce(0, +) / Double(group.count),
                                lng: group.map(\.start.lng).reduce(0, +) / Double(group.count))
            let coordinates = group.compactMap { try? Coordinate(latitude: $0.start.lat, longitude: $0.start.lng) }
            clusters.append(.cluster(count: group.count, centre: centre, bounds: BoundingBox(covering: coordinates)!,
                                     expansionZoom: expansionZoom(group, from: zoom),
                                     tourIds: sorted.prefix(clusterSampleSize).map(\.tourId)))
        }
        clusters.sort {
            guard case .cluster(let a, let ca, _, _, _) = $0, case .cluster(let b, let cb, _, _, _) = $1 else { return false }
            return a != b ? a > b : (ca.lat, ca.lng) < (cb.lat, cb.lng)
        }
        return clusters + singles.sorted { $0.tourId.uuidString < $1.tourId.uuidString }.map { .tour($0) }
    }

    /// The first zoom above `zoom` at which the group no longer falls into one cell.
    static func expansionZoom(_ group: [TourMarker], from zoom: Int) -> Int {
        for next in (zoom + 1)..<maximumClusterZoom where Set(group.map { cell($0.start, zoom: next) }).count > 1 {
            return next
        }
        return maximumClusterZoom
    }

    /// The items as a GeoJSON FeatureCollection (RFC 7946): clusters with `cluster: true`, `count`, `expansionZoom`,
    /// `tourIds` and a `bbox`; tours with `cluster: false`, `tourId` and `title`.
    public static func featureCollection(_ items: [TourMapItem]) throws -> FeatureCollection {
        try FeatureCollection(items.map { item in
            switch item {
            case .tour(let marker):
                Feature(id: .string(marker.tourId.uuidString.lowercased()),
                        geometry: .point(Point(try Position(longitude: marker.start.lng, latitude: marker.start.lat))),
                        properties: ["cluster": false, "tourId": .string(marker.tourId.uuidString.lowercased()), "title": .string(marker.title)])
            case .cluster(let count, let centre, let bounds, let expansionZoom, let tourIds):
                Feature(geometry: .point(Point(try Position(longitude: centre.lng, latitude: centre.lat))),
                        properties: ["cluster": true, "count": .number(Double(count)), "expansionZoom": .number(Double(expansionZoom)),
                                     "tourIds": .array(tourIds.map { .string($0.uuidString.lowercased()) })],
                        bbox: bounds)
            }
        })
    }
}
