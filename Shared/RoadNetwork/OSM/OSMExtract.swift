/// An OpenStreetMap extract on disk: OSM XML (`.osm`), gzip-compressed OSM XML (`.osm.gz`) or OSM PBF (`.osm.pbf`).
///
/// The format is told by the file's first bytes (gzip's `1f 8b`, XML's `<`, PBF's BlobHeader length), not by its
/// name, so a misnamed file still reads — or is refused as ``OSMReadError/Reason/unknownFormat``.
public struct OSMExtract: Sendable, Hashable {
    /// The file's formats.
    public enum Format: String, Sendable, Hashable {
        case xml
        case gzipXML = "xml+gzip"
        case pbf
    }

    /// The file's path.
    public let path: String

    /// The extract at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The file's format, from its first bytes.
    public func format() throws(OSMReadError) -> Format {
        let file = try OSMInputFile(path: path)
        var head: [UInt8] = []
        _ = try file.read(appendingTo: &head, count: 8)
        guard !head.isEmpty else { throw OSMReadError(file: path, offset: 0, reason: .empty) }
        if head.count >= 2, head[0] == 0x1F, head[1] == 0x8B { return .gzipXML }
        if let first = head.first(where: { !OSMXMLText.isSpace($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }), first == UInt8(ascii: "<") {
            return .xml
        }
        // PBF: a 4-byte big-endian BlobHeader length, then field 1 (type, length-delimited: 0x0A) of that header.
        if head.count >= 5, head[0] == 0, head[1] == 0, head[4] == 0x0A { return .pbf }
        throw OSMReadError(file: path, offset: 0, reason: .unknownFormat)
    }

    /// Streams the whole extract into `visitor`: the header first, then every wanted element in file order.
    ///
    /// Throws ``OSMReadError`` when the file is missing, damaged or cut off — possibly after some elements were
    /// delivered, so a caller builds nothing from an extract whose read threw. Errors thrown by the visitor pass
    /// through unchanged.
    public func read(into visitor: inout some OSMVisitor) throws {
        let format = try format()
        switch format {
        case .xml, .gzipXML:
            let file = try OSMInputFile(path: path)
            var reader = OSMXMLReader(stream: try OSMByteStream(file: file, gzip: format == .gzipXML))
            try reader.read(into: &visitor)
        case .pbf:
            var reader = OSMPBFReader(file: try OSMInputFile(path: path))
            try reader.read(into: &visitor)
        }
    }
}
