import Foundation

/// Writes an OSM XML (API 0.6) file as a stream: bytes collect in a buffer that is written out every few MiB, so a
/// million-node grid never sits in memory as one document. Coordinates are given in 10⁻⁷ degrees (OSM's precision)
/// and printed with seven decimals, without floating-point formatting.
struct OSMXMLWriter {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var written = 0
    /// Bytes collected before ``flushIfFull()`` writes them out.
    static let flushBytes = 4 << 20

    /// A writer to a new (or emptied) file at `path`.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        buffer.reserveCapacity(Self.flushBytes + (64 << 10))
    }

    /// The XML declaration, `<osm>` and `<bounds>`.
    mutating func begin(south: Int, west: Int, north: Int, east: Int) {
        append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"waypoint-bench roads\">\n")
        append(" <bounds minlat=\""); appendE7(south); append("\" minlon=\""); appendE7(west)
        append("\" maxlat=\""); appendE7(north); append("\" maxlon=\""); appendE7(east); append("\"/>\n")
    }

    /// A node without tags.
    mutating func node(id: Int64, latitudeE7: Int, longitudeE7: Int) {
        append(" <node id=\""); append(id); append("\" lat=\""); appendE7(latitudeE7)
        append("\" lon=\""); appendE7(longitudeE7); append("\"/>\n")
    }

    /// A way with its node references and tags.
    mutating func way(id: Int64, nodeIDs: [Int64], tags: [(key: String, value: String)]) {
        append(" <way id=\""); append(id); append("\">\n")
        for node in nodeIDs {
            append("  <nd ref=\""); append(node); append("\"/>\n")
        }
        for tag in tags {
            append("  <tag k=\""); appendEscaped(tag.key); append("\" v=\""); appendEscaped(tag.value); append("\"/>\n")
        }
        append(" </way>\n")
    }

    /// Writes the buffer out once it holds ``flushBytes``.
    mutating func flushIfFull() throws {
        if buffer.count >= Self.flushBytes { try flush() }
    }

    /// Closes `<osm>`, writes everything out and closes the file; returns the file's size in bytes.
    mutating func finish() throws -> Int {
        append("</osm>\n")
        try flush()
        try handle.close()
        return written
    }

    private mutating func flush() throws {
        try handle.write(contentsOf: buffer)
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private mutating func append(_ number: Int64) {
        var digits: [UInt8] = []
        var rest = number.magnitude
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if number < 0 { buffer.append(UInt8(ascii: "-")) }
        buffer.append(contentsOf: digits.reversed())
    }

    /// `value` × 10⁻⁷ with seven decimals (`470000000` → `47.0000000`).
    private mutating func appendE7(_ value: Int) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = Int64(value.magnitude)
        append(magnitude / 10_000_000)
        buffer.append(UInt8(ascii: "."))
        var fraction = magnitude % 10_000_000
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 7)
        for index in stride(from: 6, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        buffer.append(contentsOf: digits)
    }

    /// An attribute value with XML's five special characters escaped.
    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            case UInt8(ascii: "'"): append("&apos;")
            default: buffer.append(byte)
            }
        }
    }
}
