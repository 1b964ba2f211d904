import Contracts
import Foundation
import Geo
import Hummingbird
import RoadNetwork
import NIOCore
import ServiceKit

/// The approved network by area (`docs/path-review.md`, "The approved network"):
/// - `GET /v1/paths?bbox=west,south,east,north[&zoom=][&limit=]` — the paths whose bounding box meets the box, by path
///   id, at most `limit` (≤ 500, the default); `truncated` says more were there (zoom in or split the box). With `zoom`
///   (0–22) each line is simplified (Douglas–Peucker) for its zoom band (``ApprovedFeatureBands``: pre-rendered at
///   approval, one pixel of a 256-pixel web-map tile at the band's finest zoom). A box across the antimeridian is two
///   requests.
/// - `GET /v1/paths?near=lat,lng[&radiusM=][&limit=]` — the paths within `radiusM` (1–2,000 m, default 200), nearest
///   first, at most `limit` (≤ 50, default 20); full geometry.
struct ApprovedPathListing: Sendable {
    let reads: any ApprovedNetworkReads
    let lookup: any ApprovedNetworkLookup
    let boxes: ApprovedBoxIndex
    let features: ApprovedFeatureCache

    static let maximumBoxFeatures = 500
    static let defaultNearLimit = 20
    static let maximumNearLimit = 50

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var validator = Validator()
        let boxText = query.get("bbox"), near = query.get("near")
        validator.require(boxText != nil || near != nil, field: "bbox", code: "required", message: "give bbox (west,south,east,north) or near (lat,lng)")
        validator.require(boxText == nil || near == nil, field: "near", code: "conflict", message: "give bbox or near, not both")
        let box = boxText.flatMap(Self.box)
        validator.require(boxText == nil || box != nil, field: "bbox", code: "out-of-range", message: """
            must be west,south,east,north in degrees: longitudes -180…180 with west ≤ east (a box across the antimeridian is two \
            requests), latitudes -90…90 with south ≤ north
            """)
        let point = near.flatMap(StreetRoutes.point)
        validator.require(near == nil || point != nil, field: "near", code: "out-of-range",
                          message: "must be lat,lng with a latitude in -90…90 and a longitude in -180…180")
        let zoom = query.get("zoom").map { StreetRoutes.number($0, default: 0, field: "zoom", 0...22, &validator, whole: true) }
        let radius = StreetRoutes.number(query.get("radiusM"), default: StreetRoutes.defaultRadius, field: "radiusM", 1...StreetRoutes.maximumRadius, &validator)
        let most = box != nil ? Self.maximumBoxFeatures : Self.maximumNearLimit
        let limit = Int(StreetRoutes.number(query.get("limit"), default: Double(box != nil ? most : Self.defaultNearLimit), field: "limit",
                                            1...Double(most), &validator, whole: true))
        try validator.check()
        if let box {
            let (found, truncated) = try await features(in: box, limit: limit, zoom: zoom.map { Int($0) })
            return Self.collection(found[...], truncated: truncated)
        }
        guard let point else { throw Problem.badRequest("give bbox or near") }
        var features: [ApprovedPathListFeature] = []
        for id in try await lookup.paths(nearLatitude: point.latitude, longitude: point.longitude, radiusMetres: radius, limit: limit) {
            guard let record = try await reads.path(id: id) else { continue }  // retired between the two reads
            features.append(ApprovedPathListFeature(ApprovedPathSummary(approved: record.approved, condition: record.condition,
                                                                        obstacleCount: record.obstacles.count), tolerance: nil))
        }
        return try ApprovedPathCollection(features: features, truncated: false).response(from: request, context: context)
    }

    /// The features of the first `limit` paths (in id order) whose box meets `box`, and whether more met it: one read
    /// of the versions (``ApprovedNetworkReads/versions()``), the page chosen in memory (``ApprovedBoxIndex``), then
    /// ``rows(of:zoom:versions:)``.
    func features(in box: ApprovedNetworkBox, limit: Int, zoom: Int?) async throws -> (rows: [ApprovedFeatureRow], truncated: Bool) {
        let versions = try await reads.versions()
        let (shape, page) = try await boxes.page(box, limit: limit + 1, at: versions.shape)
        let found = try await rows(of: Array(page.prefix(limit)), zoom: zoom, versions: ApprovedNetworkVersions(shape: shape, states: versions.states))
        return (found, page.count > limit)
    }

    /// The features of `page` (chosen at `versions.shape`) in its order, retired paths left out. The held fragments
    /// (``ApprovedFeatureCache``) need only their paths' current states, themselves held per projection checkpoint
    /// (`versions.states`): only the states not held are read. The others are read whole and their fragments and
    /// states held. The reads run one after the other: each is a short read on the caller's thread (SQLite) or one
    /// round trip (PostgreSQL), and running them as child tasks cost more in task starts and thread hops than it saved.
    func rows(of page: [ApprovedBoxIndex.Entry], zoom: Int?, versions: ApprovedNetworkVersions) async throws -> [ApprovedFeatureRow] {
        let band = ApprovedFeatureBands.band(zoom: zoom)
        let ids = page.map(\.id)
        let held = features.fragments(of: ids, band: band, version: versions.shape)
        let heldAt = held.indices.filter { held[$0] != nil }, missingAt = held.indices.filter { held[$0] == nil }
        var states = features.states(of: heldAt.map { ids[$0] }, version: versions.states)
        let unknownAt = states.indices.filter { states[$0] == nil }
        if !unknownAt.isEmpty {
            let read = try await reads.states(of: unknownAt.map { page[heldAt[$0]] })
            for (at, state) in zip(unknownAt, read) { states[at] = .some(state) }
            features.holdStates(zip(unknownAt, read).map { (ids[heldAt[$0]], $1) }, version: versions.states)
        }
        let fetched = missingAt.isEmpty ? [] : try await reads.features(of: missingAt.map { page[$0] }, zoom: zoom)
        var rows = [ApprovedFeatureRow?](repeating: nil, count: page.count)
        for (index, state) in zip(heldAt, states) {
            guard let fragment = held[index], let state = state ?? nil else { continue }
            rows[index] = ApprovedFeatureRow(fragment: fragment, condition: state.condition, obstacleCount: state.obstacleCount)
        }
        for (index, row) in zip(missingAt, fetched) { rows[index] = row }
        features.hold(zip(missingAt, fetched).compactMap { index, row in row.map { (page[index].id, $0.fragment) } }, band: band,
                      version: versions.shape)
        features.holdStates(zip(missingAt, fetched).map { index, row in
            (ids[index], row.map { ApprovedPathState(condition: $0.condition, obstacleCount: $0.obstacleCount) })
        }, version: versions.states)
        return rows.compactMap { $0 }
    }

    /// The `FeatureCollection` of pre-rendered features, as ``ApprovedPathCollection`` would encode it: each stored
    /// fragment and its closing written straight into the body.
    static func collection(_ features: ArraySlice<ApprovedFeatureRow>, truncated: Bool) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(features.reduce(128) { $0 + $1.fragment.readableBytes + 64 })
        buffer.writeString(#"{"type":"FeatureCollection","features":["#)
        for (index, feature) in features.enumerated() {
            if index > 0 { buffer.writeString(",") }
            feature.write(into: &buffer)
        }
        buffer.writeString(#"],"truncated":\#(truncated),"attribution":\#(attribution)}"#)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// The map data's attribution as a JSON string, escaped once (its `©` is not ASCII: the quick path of
    /// ``ApprovedFeatureBands/quoted(_:)`` does not take it, and an encoder per page showed in profiles).
    static let attribution = ApprovedFeatureBands.quoted(MapDataAttribution.openStreetMap)

    /// `west,south,east,north` in range and in order (NaN and infinities are out of range), `nil` otherwise. Spaces and
    /// tabs around a number are allowed.
    static func box(_ text: String) -> ApprovedNetworkBox? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(trimmed($0)) }
        guard parts.count == 4, let west = parts[0], let south = parts[1], let east = parts[2], let north = parts[3],
              (-180...180).contains(west), (-180...180).contains(east), (-90...90).contains(south), (-90...90).contains(north),
              west <= east, south <= north else { return nil }
        return ApprovedNetworkBox(west: west, south: south, east: east, north: north)
    }

    /// `part` without the spaces and tabs around it (Foundation's `trimmingCharacters(in:)` cost 5 % of path-review's
    /// CPU under the bike mix's bbox reads).
    static func trimmed(_ part: Substring) -> Substring {
        var part = part
        while let first = part.first, first == " " || first == "\t" { part.removeFirst() }
        while let last = part.last, last == " " || last == "\t" { part.removeLast() }
        return part
    }

    /// Metres of one pixel of a 256-pixel web-map tile at `zoom` and `latitude`.
    static func tolerance(zoom: Double, latitude: Double) -> Double {
        156_543.033_92 * cos(latitude * .pi / 180) / pow(2, zoom)
    }
}

/// A GeoJSON `FeatureCollection` of approved paths, with the map data's attribution.
struct ApprovedPathCollection: ResponseEncodable, Sendable {
    var type = "FeatureCollection"
    var features: [ApprovedPathListFeature]
    /// More paths met the box than `limit`.
    var truncated: Bool
    var attribution = MapDataAttribution.openStreetMap
}

/// One approved path in a listing: its line (simplified for a zoom, when one was given) and its summary.
struct ApprovedPathListFeature: Encodable, Sendable {
    struct Properties: Encodable, Sendable {
        var name: String, condition: String, details: PathApprovedDetails, lengthM: Double, approvedAt: Date, obstacleCount: Int
    }
    var type = "Feature"
    var id: String
    var geometry: ApprovedPathFeature.Line
    var properties: Properties

    init(_ summary: ApprovedPathSummary, tolerance: Double?) {
        let path = summary.approved
        id = path.pathId.uuidString.lowercased()
        geometry = ApprovedPathFeature.Line(coordinates: tolerance.map { Self.simplified(path.geometry, tolerance: $0) } ?? path.geometry)
        properties = Properties(name: path.name, condition: summary.condition, details: path.details, lengthM: path.lengthM,
                                approvedAt: path.approvedAt, obstacleCount: summary.obstacleCount)
    }

    /// `[lng, lat]` pairs kept within `tolerance` metres (all of them when one is not a coordinate).
    static func simplified(_ geometry: [[Double]], tolerance: Double) -> [[Double]] {
        guard geometry.allSatisfy({ $0.count == 2 }),
              let line = try? geometry.map({ try Coordinate(latitude: $0[1], longitude: $0[0]) }) else { return geometry }
        return Polyline(line).simplified(tolerance: tolerance).coordinates.map { [$0.longitude, $0.latitude] }
    }
}
