import Foundation

/// Appends the cache file's values as raw little-endian bytes: flat arrays are copied whole (count, then the elements'
/// memory), so writing and reading a graph is a few `memcpy`s, not a parse.
struct CacheByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Double) {
        write(value.bitPattern)
    }

    /// The element count as a `UInt64`, then the elements' bytes (the host is little-endian: see ``CacheFormat``).
    mutating func write<T: BitwiseCopyable>(array: [T]) {
        write(UInt64(array.count))
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// An optional string: its UTF-8 length as a `UInt32` (`UInt32.max` for `nil`), then its bytes.
    mutating func write(string: String?) {
        guard let string else { return write(UInt32.max) }
        let utf8 = Array(string.utf8)
        write(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

/// Reads what ``CacheByteWriter`` wrote, checking every length against the bytes left: a damaged payload is a
/// ``CacheByteReader/Truncated`` error, never a read past the end.
struct CacheByteReader {
    /// The payload ends before a value it announces.
    struct Truncated: Error {
        var offset: Int
    }

    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) throws(Truncated) -> Range<Int> {
        guard count >= 0, count <= bytes.count - offset else { throw Truncated(offset: offset) }
        defer { offset += count }
        return offset..<(offset + count)
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) throws(Truncated) -> T {
        let range = try take(MemoryLayout<T>.size)
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { target in
            bytes.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
        return T(littleEndian: value)
    }

    mutating func readDouble() throws(Truncated) -> Double {
        Double(bitPattern: try read(UInt64.self))
    }

    mutating func readBytes(_ count: Int) throws(Truncated) -> ArraySlice<UInt8> {
        bytes[try take(count)]
    }

    mutating func readArray<T: BitwiseCopyable>(of _: T.Type) throws(Truncated) -> [T] {
        let count = try read(UInt64.self)
        let stride = MemoryLayout<T>.stride
        guard count <= UInt64((bytes.count - offset) / max(stride, 1)) else { throw Truncated(offset: offset) }
        let range = try take(Int(count) * stride)
        return [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[range]))
            }
            initialized = Int(count)
        }
    }

    mutating func readString() throws(Truncated) -> String? {
        let length = try read(UInt32.self)
        if length == UInt32.max { return nil }
        return String(decoding: try readBytes(Int(length)), as: UTF8.self)
    }
}
