/// Streams an OSM PBF file (https://wiki.openstreetmap.org/wiki/PBF_Format) block by block: a 4-byte big-endian
/// `BlobHeader` length, the `BlobHeader`, then its `Blob` (raw or zlib-compressed) holding an `OSMHeader` block or an
/// `OSMData` `PrimitiveBlock` of plain nodes, `DenseNodes`, ways and relations.
///
/// One block is in memory at a time (at most 32 MiB by the format's rules, which are enforced). Groups of elements the
/// visitor does not want are skipped without decoding them. The header's `required_features` must all be supported
/// (`OsmSchema-V0.6`, `DenseNodes`): a history file or an LZMA-compressed one is refused, not misread.
struct OSMPBFReader {
    let file: OSMInputFile
    var path: String { file.path }

    /// The format's limits: a `BlobHeader` below 64 KiB, a `Blob` at most 32 MiB.
    static let maximumHeaderSize = 64 * 1024
    static let maximumBlobSize = 32 * 1024 * 1024
    static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    mutating func read(into visitor: inout some OSMVisitor) throws {
        let wanted = visitor.wanted
        var sawHeader = false
        var blocks = 0
        while true {
            let blockOffset = file.offset
            var lengthBytes: [UInt8] = []
            let got = try file.read(appendingTo: &lengthBytes, count: 4)
            if got == 0 { break }
            guard got == 4 else {
                throw OSMReadError(file: path, offset: blockOffset, reason: .truncated("a block's length is cut off"))
            }
            let headerLength = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
            guard headerLength > 0, headerLength < Self.maximumHeaderSize else {
                throw OSMReadError(file: path, offset: blockOffset,
                                   reason: blocks == 0 ? .malformed("not a PBF file (a first BlobHeader of \(headerLength) bytes)")
                                       : .malformed("a BlobHeader of \(headerLength) bytes (the format allows less than 64 KiB)"))
            }
            let headerBytes = try file.readExactly(headerLength, what: "a BlobHeader")
            let (type, dataSize) = try blobHeader(headerBytes[...], offset: blockOffset)
            guard dataSize <= Self.maximumBlobSize else {
                throw OSMReadError(file: path, offset: blockOffset, reason: .malformed("a blob of \(dataSize) bytes (the format allows 32 MiB)"))
            }
            let blobOffset = file.offset
            let blobBytes = try file.readExactly(dataSize, what: "a \(type) blob")
            switch type {
            case "OSMHeader":
                guard !sawHeader, blocks == 0 else {
                    throw OSMReadError(file: path, offset: blockOffset, reason: .malformed("an OSMHeader block after the first block"))
                }
                sawHeader = true
                let data = try blob(blobBytes[...], offset: blobOffset)
                try visitor.visit(header: try headerBlock(data[...], offset: blobOffset))
            case "OSMData":
                guard sawHeader else {
                    throw OSMReadError(file: path, offset: blockOffset, reason: .malformed("an OSMData block before the OSMHeader block"))
                }
                let data = try blob(blobBytes[...], offset: blobOffset)
                try primitiveBlock(data[...], offset: blobOffset, wanted: wanted, visitor: &visitor)
            default:
                break  // unknown block types are skipped, as the format asks
            }
            blocks += 1
        }
        guard blocks > 0 else { throw OSMReadError(file: path, offset: 0, reason: .empty) }
        guard sawHeader else { throw OSMReadError(file: path, offset: 0, reason: .malformed("no OSMHeader block")) }
    }

    // MARK: Blocks

    private func blobHeader(_ bytes: ArraySlice<UInt8>, offset: Int64) throws(OSMReadError) -> (type: String, dataSize: Int) {
        try decoding(offset: offset, element: "BlobHeader") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            var type: String?
            var size: Int64?
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .lengthDelimited): type = try reader.string()
                case (3, .varint): size = try reader.int64()
                default: try reader.skip(wire)
                }
            }
            guard let type, let size, size >= 0 else { throw ProtobufError.malformed("a BlobHeader without type or datasize") }
            return (type, Int(clamping: size))
        }
    }

    /// The uncompressed contents of a `Blob`.
    private func blob(_ bytes: ArraySlice<UInt8>, offset: Int64) throws(OSMReadError) -> [UInt8] {
        var raw: ArraySlice<UInt8>?
        var zlib: ArraySlice<UInt8>?
        var rawSize: Int64?
        var unsupported: String?
        try decoding(offset: offset, element: "Blob") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .lengthDelimited): raw = try reader.lengthDelimited()
                case (2, .varint): rawSize = try reader.int64()
                case (3, .lengthDelimited): zlib = try reader.lengthDelimited()
                case (4, .lengthDelimited): unsupported = "LZMA-compressed blobs"; try reader.skip(wire)
                case (5, .lengthDelimited): unsupported = "bzip2-compressed blobs"; try reader.skip(wire)
                case (6, .lengthDelimited): unsupported = "LZ4-compressed blobs"; try reader.skip(wire)
                case (7, .lengthDelimited): unsupported = "Zstandard-compressed blobs"; try reader.skip(wire)
                default: try reader.skip(wire)
                }
            }
        }
        if let raw { return Array(raw) }
        if let zlib {
            guard let rawSize, rawSize >= 0, rawSize <= Int64(Self.maximumBlobSize) else {
                throw OSMReadError(file: path, offset: offset, reason: .malformed("a zlib blob without a valid raw_size"))
            }
            return try Inflater.inflateZlib(zlib, expectedSize: Int(rawSize), path: path, offset: offset)
        }
        if let unsupported { throw OSMReadError(file: path, offset: offset, reason: .unsupported(unsupported)) }
        throw OSMReadError(file: path, offset: offset, reason: .malformed("a Blob without data"))
    }

    private func headerBlock(_ bytes: ArraySlice<UInt8>, offset: Int64) throws(OSMReadError) -> OSMHeader {
        var header = OSMHeader()
        var required: [String] = []
        try decoding(offset: offset, element: "HeaderBlock") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .lengthDelimited):
                    var box = ProtobufReader(try reader.lengthDelimited())
                    var edges: [Int: Int64] = [:]
                    while let (edge, edgeWire) = try box.nextField() {
                        if edgeWire == .varint, (1...4).contains(edge) { edges[edge] = try box.sint64() } else { try box.skip(edgeWire) }
                    }
                    if let left = edges[1], let right = edges[2], let top = edges[3], let bottom = edges[4] {
                        // HeaderBBox is in nanodegrees.
                        header.bounds = (Double(bottom) * 1e-9, Double(left) * 1e-9, Double(top) * 1e-9, Double(right) * 1e-9)
                    }
                case (4, .lengthDelimited): required.append(try reader.string())
                case (16, .lengthDelimited): header.writingProgram = try reader.string()
                default: try reader.skip(wire)
                }
            }
        }
        let missing = required.filter { !Self.supportedFeatures.contains($0) }
        guard missing.isEmpty else {
            throw OSMReadError(file: path, offset: offset, reason: .unsupported("required features \(missing.joined(separator: ", "))"))
        }
        return header
    }

    /// What a `PrimitiveBlock` shares among its groups.
    private struct BlockContext {
        var strings: [String] = []
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0

        func latitude(_ value: Int64) -> Double { Double(latOffset + granularity * value) * 1e-9 }
        func longitude(_ value: Int64) -> Double { Double(lonOffset + granularity * value) * 1e-9 }
    }

    private func primitiveBlock(_ bytes: ArraySlice<UInt8>, offset: Int64, wanted: OSMElementKinds,
                                visitor: inout some OSMVisitor) throws {
        var context = BlockContext()
        var groups: [ArraySlice<UInt8>] = []
        try decoding(offset: offset, element: "PrimitiveBlock") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .lengthDelimited):
                    var table = ProtobufReader(try reader.lengthDelimited())
                    while let (entry, entryWire) = try table.nextField() {
                        if entry == 1, entryWire == .lengthDelimited { context.strings.append(try table.string()) } else { try table.skip(entryWire) }
                    }
                case (2, .lengthDelimited): groups.append(try reader.lengthDelimited())
                case (17, .varint): context.granularity = Int64(truncatingIfNeeded: try reader.varint())
                case (19, .varint): context.latOffset = try reader.int64()
                case (20, .varint): context.lonOffset = try reader.int64()
                default: try reader.skip(wire)
                }
            }
        }
        guard context.granularity > 0 else {
            throw OSMReadError(file: path, offset: offset, reason: .invalidValue("granularity \(context.granularity)"))
        }
        for group in groups {
            try primitiveGroup(group, context: context, offset: offset, wanted: wanted, visitor: &visitor)
        }
    }

    private func primitiveGroup(_ bytes: ArraySlice<UInt8>, context: BlockContext, offset: Int64, wanted: OSMElementKinds,
                                visitor: inout some OSMVisitor) throws {
        var reader = ProtobufReader(bytes)
        while let (field, wire) = try decoding(offset: offset, element: "PrimitiveGroup", { () throws(ProtobufError) in try reader.nextField() }) {
            let kind: OSMElementKinds = switch field {
            case 1, 2: .nodes
            case 3: .ways
            case 4: .relations
            default: []
            }
            guard wire == .lengthDelimited, !kind.isEmpty, wanted.contains(kind) else {
                try decoding(offset: offset, element: "PrimitiveGroup") { () throws(ProtobufError) in try reader.skip(wire) }
                continue
            }
            let message = try decoding(offset: offset, element: "PrimitiveGroup") { () throws(ProtobufError) in try reader.lengthDelimited() }
            switch field {
            case 1: try visitor.visit(node: try node(message, context: context, offset: offset))
            case 2: try denseNodes(message, context: context, offset: offset, visitor: &visitor)
            case 3: try visitor.visit(way: try way(message, context: context, offset: offset))
            default: try visitor.visit(relation: try relation(message, context: context, offset: offset))
            }
        }
    }

    // MARK: Elements

    private func tags(keys: [UInt32], values: [UInt32], context: BlockContext, element: String,
                      offset: Int64) throws(OSMReadError) -> OSMTags {
        guard keys.count == values.count else {
            throw OSMReadError(file: path, offset: offset, element: element, reason: .malformed("\(keys.count) tag keys but \(values.count) values"))
        }
        var tags = OSMTags()
        for (key, value) in zip(keys, values) {
            guard Int(key) < context.strings.count, Int(value) < context.strings.count else {
                throw OSMReadError(file: path, offset: offset, element: element, reason: .malformed("a tag refers past the string table"))
            }
            tags.append(key: context.strings[Int(key)], value: context.strings[Int(value)])
        }
        return tags
    }

    private func node(_ bytes: ArraySlice<UInt8>, context: BlockContext, offset: Int64) throws(OSMReadError) -> OSMNode {
        var id: Int64?, lat: Int64?, lon: Int64?
        var keys: [UInt32] = [], values: [UInt32] = []
        try decoding(offset: offset, element: "Node") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .varint): id = try reader.sint64()
                case (2, _): try reader.repeatedUInt32(wire, into: &keys)
                case (3, _): try reader.repeatedUInt32(wire, into: &values)
                case (8, .varint): lat = try reader.sint64()
                case (9, .varint): lon = try reader.sint64()
                default: try reader.skip(wire)
                }
            }
        }
        guard let id, let lat, let lon else {
            throw OSMReadError(file: path, offset: offset, element: id.map { "node \($0)" }, reason: .invalidValue("a node without id, lat or lon"))
        }
        let name = "node \(id)"
        return try checked(OSMNode(id: id, latitude: context.latitude(lat), longitude: context.longitude(lon),
                                   tags: tags(keys: keys, values: values, context: context, element: name, offset: offset)), offset: offset)
    }

    private func checked(_ node: OSMNode, offset: Int64) throws(OSMReadError) -> OSMNode {
        guard (-90...90).contains(node.latitude), (-180...180).contains(node.longitude) else {
            throw OSMReadError(file: path, offset: offset, element: "node \(node.id)",
                               reason: .invalidValue("lat \(node.latitude), lon \(node.longitude) is not a position on Earth"))
        }
        return node
    }

    private func denseNodes(_ bytes: ArraySlice<UInt8>, context: BlockContext, offset: Int64, visitor: inout some OSMVisitor) throws {
        var ids: [Int64] = [], lats: [Int64] = [], lons: [Int64] = []
        var keysValues: [UInt32] = []
        try decoding(offset: offset, element: "DenseNodes") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch field {
                case 1: try reader.repeatedSInt64(wire, into: &ids)
                case 8: try reader.repeatedSInt64(wire, into: &lats)
                case 9: try reader.repeatedSInt64(wire, into: &lons)
                case 10: try reader.repeatedUInt32(wire, into: &keysValues)
                default: try reader.skip(wire)
                }
            }
        }
        guard ids.count == lats.count, ids.count == lons.count else {
            throw OSMReadError(file: path, offset: offset, element: "DenseNodes",
                               reason: .malformed("\(ids.count) ids, \(lats.count) latitudes and \(lons.count) longitudes"))
        }
        var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
        var tagIndex = 0
        for index in ids.indices {
            id &+= ids[index]
            lat &+= lats[index]
            lon &+= lons[index]
            var tags = OSMTags()
            if !keysValues.isEmpty {
                // keys_vals: key, value, key, value, …, 0 for each node in order.
                while true {
                    guard tagIndex < keysValues.count else {
                        throw OSMReadError(file: path, offset: offset, element: "node \(id)", reason: .malformed("keys_vals ends before its nodes do"))
                    }
                    let key = keysValues[tagIndex]
                    tagIndex += 1
                    if key == 0 { break }
                    guard tagIndex < keysValues.count else {
                        throw OSMReadError(file: path, offset: offset, element: "node \(id)", reason: .malformed("a tag key without its value"))
                    }
                    let value = keysValues[tagIndex]
                    tagIndex += 1
                    guard Int(key) < context.strings.count, Int(value) < context.strings.count else {
                        throw OSMReadError(file: path, offset: offset, element: "node \(id)", reason: .malformed("a tag refers past the string table"))
                    }
                    tags.append(key: context.strings[Int(key)], value: context.strings[Int(value)])
                }
            }
            try visitor.visit(node: try checked(OSMNode(id: id, latitude: context.latitude(lat), longitude: context.longitude(lon), tags: tags),
                                                offset: offset))
        }
    }

    private func way(_ bytes: ArraySlice<UInt8>, context: BlockContext, offset: Int64) throws(OSMReadError) -> OSMWay {
        var id: Int64?
        var keys: [UInt32] = [], values: [UInt32] = []
        var refs: [Int64] = []
        try decoding(offset: offset, element: "Way") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .varint): id = try reader.int64()
                case (2, _): try reader.repeatedUInt32(wire, into: &keys)
                case (3, _): try reader.repeatedUInt32(wire, into: &values)
                case (8, _): try reader.repeatedSInt64(wire, into: &refs)
                default: try reader.skip(wire)
                }
            }
        }
        guard let id else { throw OSMReadError(file: path, offset: offset, reason: .invalidValue("a way without id")) }
        Self.undelta(&refs)
        return OSMWay(id: id, nodeIDs: refs, tags: try tags(keys: keys, values: values, context: context, element: "way \(id)", offset: offset))
    }

    private func relation(_ bytes: ArraySlice<UInt8>, context: BlockContext, offset: Int64) throws(OSMReadError) -> OSMRelation {
        var id: Int64?
        var keys: [UInt32] = [], values: [UInt32] = []
        var roles: [UInt32] = [], types: [UInt32] = []
        var memberIDs: [Int64] = []
        try decoding(offset: offset, element: "Relation") { () throws(ProtobufError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.nextField() {
                switch (field, wire) {
                case (1, .varint): id = try reader.int64()
                case (2, _): try reader.repeatedUInt32(wire, into: &keys)
                case (3, _): try reader.repeatedUInt32(wire, into: &values)
                case (8, _): try reader.repeatedUInt32(wire, into: &roles)
                case (9, _): try reader.repeatedSInt64(wire, into: &memberIDs)
                case (10, _): try reader.repeatedUInt32(wire, into: &types)
                default: try reader.skip(wire)
                }
            }
        }
        guard let id else { throw OSMReadError(file: path, offset: offset, reason: .invalidValue("a relation without id")) }
        let name = "relation \(id)"
        guard roles.count == memberIDs.count, types.count == memberIDs.count else {
            throw OSMReadError(file: path, offset: offset, element: name,
                               reason: .malformed("\(memberIDs.count) members but \(roles.count) roles and \(types.count) types"))
        }
        Self.undelta(&memberIDs)
        var members: [OSMMember] = []
        members.reserveCapacity(memberIDs.count)
        for index in memberIDs.indices {
            guard Int(roles[index]) < context.strings.count else {
                throw OSMReadError(file: path, offset: offset, element: name, reason: .malformed("a role refers past the string table"))
            }
            let type: OSMMemberType
            switch types[index] {
            case 0: type = .node
            case 1: type = .way
            case 2: type = .relation
            default: throw OSMReadError(file: path, offset: offset, element: name, reason: .invalidValue("member type \(types[index])"))
            }
            members.append(OSMMember(type: type, ref: memberIDs[index], role: context.strings[Int(roles[index])]))
        }
        return OSMRelation(id: id, members: members, tags: try tags(keys: keys, values: values, context: context, element: name, offset: offset))
    }

    /// Replaces delta-coded values (PBF's way refs and member ids) by their running sums.
    static func undelta(_ values: inout [Int64]) {
        var running: Int64 = 0
        for index in values.indices {
            running &+= values[index]
            values[index] = running
        }
    }

    /// Runs `body`, turning a ``ProtobufError`` into an ``OSMReadError`` at `offset` naming `element`.
    private func decoding<T>(offset: Int64, element: String, _ body: () throws(ProtobufError) -> T) throws(OSMReadError) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .truncated(let what): throw OSMReadError(file: path, offset: offset, element: element, reason: .malformed("\(what)"))
            case .malformed(let what): throw OSMReadError(file: path, offset: offset, element: element, reason: .malformed(what))
            }
        }
    }
}
