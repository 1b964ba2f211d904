import Contracts
import Foundation
import Geo
import NIOCore
import ServiceKit

/// The approved network's features pre-rendered for `GET /v1/paths?bbox=` (issue 20's benchmark: a city viewport of
/// 500 paths in ≤ 10 ms): at approval the projection renders each path's GeoJSON feature once per zoom band — the line
/// simplified for the band's finest zoom, the static properties — as JSON text without its closing; a listing joins
/// the stored fragments and closes each with the path's current `condition` and `obstacleCount`, which upkeep changes.
/// No JSON is decoded or encoded per request.
///
/// Bands (a requested zoom reads the band whose finest zoom is at least it, so a line is never coarser than asked):
/// zoom ≤ 8, 9–12, 13–14, 15–16, and the full line (zoom ≥ 17, or no zoom). A band's tolerance is one pixel of a 256-pixel
/// web-map tile at its finest zoom and the path's middle latitude: 156,543 m × cos(latitude) / 2^zoom; their
/// coordinates are written to 6 decimals (≈ 0.1 m).
public enum ApprovedFeatureBands {
    /// The finest zoom of each simplified band, and the tables of all five (one narrow table a band, keyed like the
    /// path's row: a listing reads only the band it serves).
    static let zooms = [8, 12, 14, 16]
    public static let tables = ["approved_path_z8", "approved_path_z12", "approved_path_z14", "approved_path_z16", "approved_path_full"]

    /// The table a request at `zoom` reads.
    static func table(zoom: Int?) -> String { tables[band(zoom: zoom)] }

    /// The band (0–4, the index of its table) a request at `zoom` reads.
    static func band(zoom: Int?) -> Int {
        guard let zoom else { return tables.count - 1 }
        for (index, finest) in zooms.enumerated() where zoom <= finest { return index }
        return tables.count - 1
    }

    /// The five fragments of `approved`: `{"type":"Feature","id":…,"geometry":…,"properties":{…static…` — open, to be
    /// closed by ``ApprovedFeatureRow/write(into:)``.
    static func fragments(_ approved: PathApproved) throws -> [String] {
        let latitudes = approved.geometry.compactMap { $0.count == 2 ? $0[1] : nil }
        let latitude = latitudes.isEmpty ? 0 : (latitudes.min()! + latitudes.max()!) / 2
        let encoder = ServiceJSON.makeEncoder()
        let properties = String(decoding: try encoder.encode(StaticProperties(name: approved.name, details: approved.details, lengthM: approved.lengthM,
                                                                               approvedAt: approved.approvedAt)), as: UTF8.self)
        let open = properties.hasSuffix("}") ? String(properties.dropLast()) : properties
        let id = approved.pathId.uuidString.lowercased()
        // Simplified lines with coordinates to 6 decimals (≈ 0.1 m, GeoJSON's recommendation, RFC 7946 §11.2): a third
        // of the bytes of full doubles, far below a pixel at any zoom of the band; the full line as stored.
        let lines = zooms.map { zoom in
            ApprovedPathListFeature.simplified(approved.geometry, tolerance: ApprovedPathListing.tolerance(zoom: Double(zoom), latitude: latitude))
                .map { $0.map { ($0 * 1e6).rounded() / 1e6 } }
        } + [approved.geometry]
        return try lines.map { line in
            let geometry = String(decoding: try encoder.encode(ApprovedPathFeature.Line(coordinates: line)), as: UTF8.self)
            return #"{"type":"Feature","id":"\#(id)","geometry":\#(geometry),"properties":\#(open)"#
        }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        // A listing closes 500 features with their conditions (words like `optimal`): those need no escaping, and an
        // encoder per feature cost milliseconds a page.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x7F }) { return "\"" + text + "\"" }
        return (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "\"\""
    }

    struct StaticProperties: Encodable {
        var name: String, details: PathApprovedDetails, lengthM: Double, approvedAt: Date
    }
}

/// One pre-rendered feature of a listing: the stored fragment (its UTF-8 bytes, as the store handed them over) and what
/// closes it.
public struct ApprovedFeatureRow: Sendable, Hashable {
    public var fragment: ByteBuffer
    public var condition: String
    public var obstacleCount: Int

    public init(fragment: ByteBuffer, condition: String, obstacleCount: Int) {
        self.fragment = fragment
        self.condition = condition
        self.obstacleCount = obstacleCount
    }

    public init(fragment: String, condition: String, obstacleCount: Int) {
        self.init(fragment: ByteBuffer(string: fragment), condition: condition, obstacleCount: obstacleCount)
    }

    /// The feature's JSON (what ``write(into:)`` writes).
    public var json: String {
        var buffer = ByteBuffer()
        write(into: &buffer)
        return String(buffer: buffer)
    }

    /// The feature's JSON written into `buffer` (the fragment's bytes copied once, no joined string).
    func write(into buffer: inout ByteBuffer) {
        buffer.writeImmutableBuffer(fragment)
        // Closed with the current properties and the two braces, piece by piece (no string built per feature).
        if fragment.readableBytesView.last != UInt8(ascii: "{") { buffer.writeInteger(UInt8(ascii: ",")) }
        buffer.writeStaticString(#""condition":"#)
        buffer.writeString(ApprovedFeatureBands.quoted(condition))
        buffer.writeStaticString(#","obstacleCount":"#)
        buffer.writeString(String(obstacleCount))
        buffer.writeStaticString("}}")
    }
}
