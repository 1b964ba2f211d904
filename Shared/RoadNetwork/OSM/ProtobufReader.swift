/// A reader of protocol-buffer wire format (proto2) over a byte slice: just what OSM PBF needs — varints, zig-zag,
/// length-delimited fields, packed repeated scalars — with every length checked against the bytes that are there.
///
/// Malformed input (a varint longer than 10 bytes, a length past the end, a wire type that does not exist) is a
/// ``ProtobufError``, never a trap: PBF files have no checksum, so a damaged one must be caught by its structure.
struct ProtobufReader {
    let bytes: ArraySlice<UInt8>
    private(set) var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    /// What the wire says a field is.
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case startGroup = 3
        case endGroup = 4
        case fixed32 = 5
    }

    var isAtEnd: Bool { index >= bytes.endIndex }

    /// The next field's number and wire type, or `nil` at the end.
    mutating func nextField() throws(ProtobufError) -> (number: Int, wireType: WireType)? {
        guard !isAtEnd else { return nil }
        let key = try varint()
        guard let wireType = WireType(rawValue: key & 7) else { throw .malformed("wire type \(key & 7) does not exist") }
        let number = key >> 3
        guard number > 0, number < (1 << 29) else { throw .malformed("field number \(number) is out of range") }
        return (Int(number), wireType)
    }

    mutating func varint() throws(ProtobufError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.endIndex else { throw .truncated("a varint runs past the end of its message") }
            let byte = bytes[index]
            index += 1
            guard shift < 64 else { throw .malformed("a varint longer than 10 bytes") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func sint64() throws(ProtobufError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func int64() throws(ProtobufError) -> Int64 {
        Int64(bitPattern: try varint())
    }

    /// A length-delimited field's bytes.
    mutating func lengthDelimited() throws(ProtobufError) -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(bytes.endIndex - index) else {
            throw .truncated("a field of \(length) bytes runs past the end of its message (\(bytes.endIndex - index) left)")
        }
        let start = index
        index += Int(length)
        return bytes[start..<index]
    }

    mutating func string() throws(ProtobufError) -> String {
        String(decoding: try lengthDelimited(), as: UTF8.self)
    }

    /// Skips a field of `wireType`.
    mutating func skip(_ wireType: WireType) throws(ProtobufError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup, .endGroup: throw .malformed("groups are not used by OSM PBF")
        }
    }

    private mutating func advance(_ count: Int) throws(ProtobufError) {
        guard bytes.endIndex - index >= count else { throw .truncated("a fixed-size field runs past the end of its message") }
        index += count
    }

    /// A repeated varint field, packed (`lengthDelimited`) or not (one `varint`), each value passed to `body`.
    mutating func repeatedVarints(_ wireType: WireType, _ body: (UInt64) throws(ProtobufError) -> Void) throws(ProtobufError) {
        switch wireType {
        case .varint:
            try body(try varint())
        case .lengthDelimited:
            var packed = ProtobufReader(try lengthDelimited())
            while !packed.isAtEnd { try body(try packed.varint()) }
        default:
            throw .malformed("a repeated integer field with wire type \(wireType)")
        }
    }

    /// A repeated `sint64` field.
    mutating func repeatedSInt64(_ wireType: WireType, into values: inout [Int64]) throws(ProtobufError) {
        try repeatedVarints(wireType) { raw in values.append(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))) }
    }

    /// A repeated `int32`/`uint32`/enum field.
    mutating func repeatedUInt32(_ wireType: WireType, into values: inout [UInt32]) throws(ProtobufError) {
        try repeatedVarints(wireType) { raw in values.append(UInt32(truncatingIfNeeded: raw)) }
    }
}

/// A protocol-buffer message that does not follow the wire format.
enum ProtobufError: Error {
    case truncated(String)
    case malformed(String)
}
