/// Streams OSM XML (API 0.6 format: `<osm>` with `<bounds>`, `<node>`, `<way>` with `<nd>`, `<relation>` with
/// `<member>`, and `<tag>` children) from an ``OSMByteStream``, chunk by chunk: it holds one chunk and the element being
/// read, never the document.
///
/// A small tokenizer of its own rather than an XML library: OSM XML uses elements and attributes only, and reading
/// bytes directly is several times faster than a general SAX parser. Elements marked `action="delete"` or
/// `visible="false"` (JOSM files) are skipped. The document must end with `</osm>`: a file cut off anywhere is an error.
struct OSMXMLReader {
    let stream: OSMByteStream
    var path: String { stream.file.path }

    private var buffer: [UInt8] = []
    /// Offset in the decompressed stream of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private var position = 0
    private var atEnd = false

    private var sawRoot = false
    private var sawRootEnd = false
    private var header = OSMHeader()
    private var headerSent = false
    private var current: Element?
    /// The element being read is skipped (deleted, invisible or not wanted).
    private var skipping = false

    private enum Element {
        case node(OSMNode)
        case way(OSMWay)
        case relation(OSMRelation)

        var name: String {
            switch self {
            case .node(let node): "node \(node.id)"
            case .way(let way): "way \(way.id)"
            case .relation(let relation): "relation \(relation.id)"
            }
        }
    }

    init(stream: OSMByteStream) {
        self.stream = stream
    }

    mutating func read(into visitor: inout some OSMVisitor) throws {
        let wanted = visitor.wanted
        while let tag = try nextTag() {
            try handle(tag, wanted: wanted, visitor: &visitor)
        }
        if let current {
            throw error(.truncated("the file ends inside <\(current.name)>"), element: current.name)
        }
        guard sawRoot else {
            throw OSMReadError(file: path, offset: 0, reason: stream.offset == 0 ? .empty : .malformed("no <osm> element"))
        }
        guard sawRootEnd else { throw error(.truncated("the file ends before </osm>")) }
        if !headerSent { try visitor.visit(header: header) }
    }

    // MARK: Elements

    private mutating func handle(_ tag: Tag, wanted: OSMElementKinds, visitor: inout some OSMVisitor) throws {
        if tag.isClosing {
            try close(tag.name, visitor: &visitor)
            return
        }
        switch tag.name {
        case "osm":
            sawRoot = true
        case "bounds":
            let values = try ["minlat", "minlon", "maxlat", "maxlon"].map { try coordinate(tag, $0, element: "bounds") }
            header.bounds = (values[0], values[1], values[2], values[3])
        case "node", "way", "relation":
            guard current == nil else { throw error(.malformed("<\(tag.name)> inside <\(current!.name)>"), element: current!.name) }
            guard sawRoot else { throw error(.malformed("<\(tag.name)> outside <osm>")) }
            if !headerSent {
                headerSent = true
                try visitor.visit(header: header)
            }
            let id = try integer(tag, "id", element: tag.name)
            let name = "\(tag.name) \(id)"
            let kind: OSMElementKinds = tag.name == "node" ? .nodes : tag.name == "way" ? .ways : .relations
            skipping = !wanted.contains(kind) || tag["action"] == "delete" || tag["visible"] == "false"
            let element: Element
            switch tag.name {
            case "node":
                var latitude = 0.0, longitude = 0.0
                if !skipping {
                    latitude = try coordinate(tag, "lat", element: name)
                    longitude = try coordinate(tag, "lon", element: name)
                    guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                        throw error(.invalidValue("lat \(latitude), lon \(longitude) is not a position on Earth"), element: name)
                    }
                }
                element = .node(OSMNode(id: id, latitude: latitude, longitude: longitude))
            case "way": element = .way(OSMWay(id: id, nodeIDs: []))
            default: element = .relation(OSMRelation(id: id, members: []))
            }
            current = element
            if tag.isSelfClosing { try close(tag.name, visitor: &visitor) }
        case "nd":
            guard case .way(var way) = current else { throw error(.malformed("<nd> outside a <way>"), element: current?.name) }
            guard !skipping else { return }
            current = nil
            way.nodeIDs.append(try integer(tag, "ref", element: "way \(way.id)"))
            current = .way(way)
        case "member":
            guard case .relation(var relation) = current else {
                throw error(.malformed("<member> outside a <relation>"), element: current?.name)
            }
            guard !skipping else { return }
            let name = "relation \(relation.id)"
            guard let type = tag["type"].flatMap(OSMMemberType.init(rawValue:)) else {
                throw error(.invalidValue("member type must be node, way or relation"), element: name)
            }
            current = nil
            relation.members.append(OSMMember(type: type, ref: try integer(tag, "ref", element: name), role: tag["role"] ?? ""))
            current = .relation(relation)
        case "tag":
            guard var element = current else { return }  // tags of <osm> or <changeset>: not ours
            guard !skipping else { return }
            guard let key = tag["k"], let value = tag["v"] else {
                throw error(.invalidValue("<tag> needs k and v"), element: element.name)
            }
            current = nil
            switch element {
            case .node(var node): node.tags.append(key: key, value: value); element = .node(node)
            case .way(var way): way.tags.append(key: key, value: value); element = .way(way)
            case .relation(var relation): relation.tags.append(key: key, value: value); element = .relation(relation)
            }
            current = element
        default:
            break  // <note>, <meta>, <changeset>, …: not part of the network
        }
    }

    private mutating func close(_ name: String, visitor: inout some OSMVisitor) throws {
        switch name {
        case "osm":
            guard current == nil else { throw error(.malformed("</osm> inside <\(current!.name)>"), element: current!.name) }
            sawRootEnd = true
        case "node", "way", "relation":
            guard let element = current else { throw error(.malformed("</\(name)> without its start")) }
            current = nil
            guard !skipping else { return }
            switch element {
            case .node(let node) where name == "node": try visitor.visit(node: node)
            case .way(let way) where name == "way": try visitor.visit(way: way)
            case .relation(let relation) where name == "relation": try visitor.visit(relation: relation)
            default: throw error(.malformed("</\(name)> closes <\(element.name)>"), element: element.name)
            }
        default:
            break
        }
    }

    // MARK: Attributes

    private func integer(_ tag: Tag, _ attribute: String, element: String) throws(OSMReadError) -> Int64 {
        guard let bytes = tag.raw(attribute) else { throw error(.invalidValue("\(attribute) is missing"), element: element) }
        guard let value = OSMNumbers.int64(bytes) else {
            throw error(.invalidValue("\(attribute)=\"\(String(decoding: bytes, as: UTF8.self))\" is not an integer"), element: element)
        }
        return value
    }

    private func coordinate(_ tag: Tag, _ attribute: String, element: String) throws(OSMReadError) -> Double {
        guard let bytes = tag.raw(attribute) else { throw error(.invalidValue("\(attribute) is missing"), element: element) }
        guard let value = OSMNumbers.double(bytes), value.isFinite else {
            throw error(.invalidValue("\(attribute)=\"\(String(decoding: bytes, as: UTF8.self))\" is not a number"), element: element)
        }
        return value
    }

    private func error(_ reason: OSMReadError.Reason, element: String? = nil) -> OSMReadError {
        OSMReadError(file: path, offset: bufferOffset + Int64(position), element: element, reason: reason)
    }

    // MARK: Tokenizer

    /// One start, end or empty-element tag.
    struct Tag {
        var name: String
        var isClosing = false
        var isSelfClosing = false
        /// Attribute names and raw values (entities not yet decoded), in order.
        var attributes: [(name: String, value: ArraySlice<UInt8>)] = []

        func raw(_ name: String) -> ArraySlice<UInt8>? {
            for attribute in attributes where attribute.name == name { return attribute.value }
            return nil
        }

        /// The decoded value of attribute `name` (entities replaced); `nil` when absent or badly escaped.
        subscript(_ name: String) -> String? {
            raw(name).flatMap(OSMXMLText.decode)
        }
    }

    /// The next tag that is an element (comments, declarations and processing instructions skipped), or `nil` at the
    /// end of the input.
    private mutating func nextTag() throws -> Tag? {
        while true {
            guard let open = try find(UInt8(ascii: "<")) else { return nil }
            position = open
            guard let end = try tagEnd(from: open) else {
                throw error(.truncated("the file ends inside a tag"), element: current?.name)
            }
            // `tagEnd` may have moved the buffer: positions are relative to the current one.
            let start = position
            position = end + 1
            let inner = buffer[(start + 1)..<end]
            guard let first = inner.first else { throw error(.malformed("empty tag <>")) }
            if first == UInt8(ascii: "?") || first == UInt8(ascii: "!") { continue }
            return try parseTag(inner, at: start)
        }
    }

    /// Index of the next `byte` at or after ``position``, reading more input as needed (text before it is dropped).
    private mutating func find(_ byte: UInt8) throws -> Int? {
        while true {
            if let index = buffer[position...].firstIndex(of: byte) { return index }
            position = buffer.count
            guard try fill() else { return nil }
        }
    }

    /// Index of the `>` ending the markup that starts at `open` (quotes, comments and `?>` respected), reading more
    /// input as needed; `nil` if the input ends first. May compact the buffer: ``position`` then points to the `<`.
    private mutating func tagEnd(from open: Int) throws -> Int? {
        var start = open
        while true {
            if let end = Self.scanTagEnd(buffer, from: start) { return end }
            let consumed = start - position
            guard try fill() else { return nil }
            start = position + consumed
        }
    }

    /// Reads another chunk after compacting the buffer to start at ``position``; false at the end of the input.
    private mutating func fill() throws -> Bool {
        guard !atEnd else { return false }
        if position > 0 {
            buffer.removeFirst(position)
            bufferOffset += Int64(position)
            position = 0
        }
        if try stream.read(appendingTo: &buffer) == 0 {
            atEnd = true
            return false
        }
        return true
    }

    /// The index of the markup's closing `>` in `bytes` from `open` (which holds `<`), or `nil` if it is not there yet.
    static func scanTagEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        let count = bytes.count
        guard open + 1 < count else { return nil }
        if open + 3 < count, bytes[open + 1] == UInt8(ascii: "!"), bytes[open + 2] == UInt8(ascii: "-"), bytes[open + 3] == UInt8(ascii: "-") {
            var index = open + 4
            while index + 2 < count {
                if bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "-"), bytes[index + 2] == UInt8(ascii: ">") {
                    return index + 2
                }
                index += 1
            }
            return nil
        }
        var quote: UInt8 = 0
        var index = open + 1
        while index < count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index
            }
            index += 1
        }
        return nil
    }

    private func parseTag(_ inner: ArraySlice<UInt8>, at offset: Int) throws(OSMReadError) -> Tag {
        var index = inner.startIndex
        var end = inner.endIndex
        var tag = Tag(name: "")
        if inner[index] == UInt8(ascii: "/") {
            tag.isClosing = true
            index += 1
        }
        if end > index, inner[end - 1] == UInt8(ascii: "/") {
            tag.isSelfClosing = true
            end -= 1
        }
        let nameStart = index
        while index < end, !OSMXMLText.isSpace(inner[index]) { index += 1 }
        guard index > nameStart else { throw error(.malformed("a tag without a name")) }
        tag.name = String(decoding: inner[nameStart..<index], as: UTF8.self)
        while true {
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end else { break }
            let attributeStart = index
            while index < end, inner[index] != UInt8(ascii: "="), !OSMXMLText.isSpace(inner[index]) { index += 1 }
            let name = inner[attributeStart..<index]
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end, inner[index] == UInt8(ascii: "=") else {
                throw error(.malformed("attribute \(String(decoding: name, as: UTF8.self)) of <\(tag.name)> has no value"))
            }
            index += 1
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end, inner[index] == UInt8(ascii: "\"") || inner[index] == UInt8(ascii: "'") else {
                throw error(.malformed("attribute \(String(decoding: name, as: UTF8.self)) of <\(tag.name)> is not quoted"))
            }
            let quote = inner[index]
            index += 1
            let valueStart = index
            while index < end, inner[index] != quote { index += 1 }
            guard index < end else { throw error(.malformed("an unterminated attribute value in <\(tag.name)>")) }
            tag.attributes.append((String(decoding: name, as: UTF8.self), inner[valueStart..<index]))
            index += 1
        }
        return tag
    }
}

/// XML text helpers: whitespace and the five predefined entities plus character references. Public because the GPX
/// reader (RecordTripAnalysis) decodes its text with the same rules.
public enum OSMXMLText {
    /// Whether `byte` is XML whitespace (space, tab, line feed, carriage return).
    public static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `bytes` with entity and character references replaced; `nil` for an unknown entity or bad reference.
    public static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                output.append(byte)
                index += 1
                continue
            }
            guard let semicolon = bytes[index...].firstIndex(of: UInt8(ascii: ";")) else { return nil }
            let name = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "amp": output.append(UInt8(ascii: "&"))
            case "lt": output.append(UInt8(ascii: "<"))
            case "gt": output.append(UInt8(ascii: ">"))
            case "quot": output.append(UInt8(ascii: "\""))
            case "apos": output.append(UInt8(ascii: "'"))
            default:
                guard name.hasPrefix("#") else { return nil }
                let digits = name.dropFirst()
                let code = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let code, let scalar = Unicode.Scalar(code) else { return nil }
                output.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            index = semicolon + 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Number parsing straight from bytes, without building strings. Public because the GPX reader (RecordTripAnalysis)
/// parses its coordinates and values the same way.
public enum OSMNumbers {
    /// A decimal integer with an optional sign; `nil` if anything else is there or it overflows.
    public static func int64(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var index = bytes.startIndex
        var negative = false
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.endIndex else { return nil }
        var value: Int64 = 0
        while index < bytes.endIndex {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }

    /// A decimal number (`-12.345`, exponents through the standard library); `nil` if malformed.
    public static func double(_ bytes: ArraySlice<UInt8>) -> Double? {
        var index = bytes.startIndex
        var negative = false
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return Double(String(decoding: bytes, as: UTF8.self)) }
                guard digits < 15 else { return Double(String(decoding: bytes, as: UTF8.self)) }
                mantissa = mantissa * 10 + Int64(digit)
                digits += 1
                if seenPoint { fraction += 1 }
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        // Both exact in binary (mantissa < 10^15 < 2^53, and powers of ten are exact up to 10^22): one correctly rounded
        // division, the same value `strtod` gives.
        let value = Double(mantissa) / powersOfTen[fraction]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}
