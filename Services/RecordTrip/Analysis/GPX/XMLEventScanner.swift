import RoadNetwork

/// One piece of an XML document as the GPX reader needs it.
enum XMLEvent {
    /// A start tag (`selfClosing` for `<a/>`): its local name (namespace prefix removed) and raw attribute values.
    case start(name: String, attributes: [(name: String, value: ArraySlice<UInt8>)], selfClosing: Bool)
    /// An end tag's local name.
    case end(name: String)
    /// Character data between tags, still escaped (`isCDATA`: from a CDATA section, not to be unescaped).
    case text(ArraySlice<UInt8>, isCDATA: Bool)
}

/// Splits a whole document held in memory into ``XMLEvent``s. Like RoadNetwork's OSM XML tokenizer it reads bytes
/// directly, but it also returns character data (GPX keeps times and elevations there) and CDATA sections. Comments,
/// processing instructions and the XML declaration are skipped; any `<!DOCTYPE` or `<!ENTITY` is refused outright, so
/// no entity is ever defined and none is ever expanded (the XML bomb defence).
struct XMLEventScanner {
    let bytes: [UInt8]
    /// Where the next event starts.
    private(set) var position = 0
    /// Where the last event returned started (for error messages).
    private(set) var eventStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is allowed before the declaration.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The next event, `nil` at the end of the input.
    mutating func next() throws(GPXError) -> XMLEvent? {
        while position < bytes.count {
            eventStart = position
            guard bytes[position] == UInt8(ascii: "<") else {
                let end = bytes[position...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                defer { position = end }
                return .text(bytes[position..<end], isCDATA: false)
            }
            if has("<!--") {
                position = try end(of: "-->", what: "a comment")
            } else if has("<?") {
                position = try end(of: "?>", what: "a processing instruction")
            } else if has("<![CDATA[") {
                let close = try end(of: "]]>", what: "a CDATA section")
                defer { position = close }
                return .text(bytes[(eventStart + 9)..<(close - 3)], isCDATA: true)
            } else if has("<!") {
                throw error("DOCTYPE and entity declarations are refused (no DTD is read, so no entity can expand)",
                            kind: .forbiddenMarkup)
            } else {
                return try tag()
            }
        }
        return nil
    }

    /// A ``GPXError`` at the start of the current event, with its line number.
    func error(_ reason: String, kind: GPXError.Kind = .malformed, at offset: Int? = nil) -> GPXError {
        let offset = min(offset ?? eventStart, bytes.count)
        var line = 1
        for byte in bytes[..<offset] where byte == 0x0A { line += 1 }
        return GPXError(reason, kind: kind, line: line, offset: offset)
    }

    private func has(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let start = prefix.utf8Start
        for index in 0..<count where bytes[position + index] != start[index] { return false }
        return true
    }

    /// The index just past `terminator` after ``position``.
    private func end(of terminator: StaticString, what: String) throws(GPXError) -> Int {
        let pattern = Array(UnsafeBufferPointer(start: terminator.utf8Start, count: terminator.utf8CodeUnitCount))
        var index = position + 2
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index + pattern.count
            }
            index += 1
        }
        throw error("the file ends inside \(what)", kind: .truncated)
    }

    private mutating func tag() throws(GPXError) -> XMLEvent {
        var index = position + 1
        var quote: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                break
            } else if byte == UInt8(ascii: "<") {
                throw error("a '<' inside a tag")
            }
            index += 1
        }
        guard index < bytes.count else { throw error("the file ends inside a tag", kind: .truncated) }
        defer { position = index + 1 }
        return try parseTag(bytes[(position + 1)..<index])
    }

    private func parseTag(_ inner: ArraySlice<UInt8>) throws(GPXError) -> XMLEvent {
        var index = inner.startIndex, end = inner.endIndex
        let closing = index < end && inner[index] == UInt8(ascii: "/")
        if closing { index += 1 }
        let selfClosing = !closing && end > index && inner[end - 1] == UInt8(ascii: "/")
        if selfClosing { end -= 1 }
        let nameStart = index
        while index < end, !OSMXMLText.isSpace(inner[index]) { index += 1 }
        guard index > nameStart else { throw error("a tag without a name") }
        let name = Self.localName(inner[nameStart..<index])
        if closing {
            guard inner[index..<end].allSatisfy(OSMXMLText.isSpace) else { throw error("attributes in the end tag </\(name)>") }
            return .end(name: name)
        }
        var attributes: [(name: String, value: ArraySlice<UInt8>)] = []
        while true {
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end else { break }
            let attributeStart = index
            while index < end, inner[index] != UInt8(ascii: "="), !OSMXMLText.isSpace(inner[index]) { index += 1 }
            let attribute = Self.localName(inner[attributeStart..<index])
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end, inner[index] == UInt8(ascii: "=") else { throw error("attribute \(attribute) of <\(name)> has no value") }
            index += 1
            while index < end, OSMXMLText.isSpace(inner[index]) { index += 1 }
            guard index < end, inner[index] == UInt8(ascii: "\"") || inner[index] == UInt8(ascii: "'") else {
                throw error("attribute \(attribute) of <\(name)> is not quoted")
            }
            let quote = inner[index]
            index += 1
            let valueStart = index
            while index < end, inner[index] != quote { index += 1 }
            guard index < end else { throw error("an unterminated attribute value in <\(name)>") }
            attributes.append((attribute, inner[valueStart..<index]))
            index += 1
        }
        return .start(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    /// `gpxtpx:speed` → `speed`: GPX files bind the Garmin namespaces to any prefix (`ns3:` in Garmin Connect's own
    /// exports), so the reader goes by local names, which are unambiguous in a track point. (Only the local part becomes
    /// a string: GPX's names are short enough to be stored inline, without an allocation.)
    private static func localName(_ bytes: ArraySlice<UInt8>) -> String {
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[(colon + 1)...], as: UTF8.self)
    }
}
