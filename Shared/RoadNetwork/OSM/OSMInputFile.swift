import CZlib

import Glibc

/// A file read in chunks with POSIX `read(2)`: the readers never hold a whole extract in memory.
///
/// A class only to close the descriptor when the last user is gone; readers use it from one thread.
final class OSMInputFile {
    let path: String
    private let descriptor: Int32
    /// Bytes read from the file so far.
    private(set) var offset: Int64 = 0

    init(path: String) throws(OSMReadError) {
        self.path = path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw OSMReadError(file: path, reason: .unreadable(String(cString: strerror(errno))))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw OSMReadError(file: path, reason: .unreadable("not a regular file"))
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw OSMReadError(file: path, reason: .unreadable(String(cString: strerror(errno))))
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes appended to `buffer`; 0 at the end of the file.
    @discardableResult
    func read(appendingTo buffer: inout [UInt8], count: Int) throws(OSMReadError) -> Int {
        let result = buffer.appendBytes(upTo: count) { room in
            var total = 0
            while total < room.count {
                let n = Glibc.read(descriptor, room.baseAddress! + total, room.count - total)
                if n < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                if n == 0 { break }
                total += n
            }
            return total
        }
        guard result >= 0 else {
            throw OSMReadError(file: path, offset: offset, reason: .unreadable(String(cString: strerror(errno))))
        }
        offset += Int64(result)
        return result
    }

    /// Exactly `count` bytes, or a ``OSMReadError/Reason/truncated(_:)`` error describing `what` was cut off.
    func readExactly(_ count: Int, what: @autoclosure () -> String) throws(OSMReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        let start = offset
        let received = try read(appendingTo: &bytes, count: count)
        guard received == count else {
            throw OSMReadError(file: path, offset: start,
                               reason: .truncated("\(what()): \(count) bytes expected, \(received) left in the file"))
        }
        return bytes
    }
}

/// The bytes of an input file, decompressed on the fly when it is gzip (RFC 1952, concatenated members included).
final class OSMByteStream {
    let file: OSMInputFile
    private var inflater: Inflater?
    private var compressed: [UInt8] = []
    private var compressedStart = 0
    private var finished = false
    /// Bytes delivered so far (decompressed).
    private(set) var offset: Int64 = 0

    static let chunk = 1 << 20

    init(file: OSMInputFile, gzip: Bool) throws(OSMReadError) {
        self.file = file
        if gzip { inflater = try Inflater(path: file.path, format: .gzip) }
    }

    /// Appends up to about one chunk of bytes to `buffer`; returns the number appended, 0 at the end.
    func read(appendingTo buffer: inout [UInt8]) throws(OSMReadError) -> Int {
        guard let inflater else {
            let n = try file.read(appendingTo: &buffer, count: Self.chunk)
            offset += Int64(n)
            return n
        }
        while !finished {
            if compressedStart == compressed.count {
                compressed.removeAll(keepingCapacity: true)
                compressedStart = 0
                if try file.read(appendingTo: &compressed, count: Self.chunk) == 0 {
                    if inflater.isBetweenMembers { finished = true; break }
                    throw OSMReadError(file: file.path, offset: file.offset,
                                       reason: .truncated("the gzip stream ends inside a member (its end and checksum are missing)"))
                }
            }
            let (consumed, produced) = try inflater.inflate(compressed[compressedStart...], appendingTo: &buffer,
                                                            limit: Self.chunk, fileOffset: file.offset)
            compressedStart += consumed
            offset += Int64(produced)
            if produced > 0 { return produced }
        }
        return 0
    }
}

/// zlib's `inflate` on byte arrays, for gzip files and PBF's zlib blobs.
final class Inflater {
    enum Format { case gzip, zlib }

    private var stream = z_stream()
    private let path: String
    private let format: Format
    /// True before the first byte and after each complete gzip member.
    private(set) var isBetweenMembers = true

    init(path: String, format: Format) throws(OSMReadError) {
        self.path = path
        self.format = format
        let windowBits = format == .gzip ? 16 + MAX_WBITS : MAX_WBITS
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw OSMReadError(file: path, reason: .compression("zlib cannot start inflating"))
        }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates from `input` into `output` (at most `limit` new bytes); returns the input consumed and output produced.
    func inflate(_ input: ArraySlice<UInt8>, appendingTo output: inout [UInt8], limit: Int,
                 fileOffset: Int64) throws(OSMReadError) -> (consumed: Int, produced: Int) {
        guard !input.isEmpty else { return (0, 0) }
        var status: Int32 = Z_OK
        var consumed = 0
        let produced = input.withUnsafeBufferPointer { inputBytes in
            output.appendBytes(upTo: limit) { room in
                stream.next_in = UnsafeMutablePointer(mutating: inputBytes.baseAddress)
                stream.avail_in = uInt(inputBytes.count)
                stream.next_out = room.baseAddress!
                stream.avail_out = uInt(room.count)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                consumed = inputBytes.count - Int(stream.avail_in)
                return room.count - Int(stream.avail_out)
            }
        }
        switch status {
        case Z_OK, Z_BUF_ERROR:
            isBetweenMembers = false
        case Z_STREAM_END:
            isBetweenMembers = true
            guard inflateReset(&stream) == Z_OK else {
                throw OSMReadError(file: path, offset: fileOffset, reason: .compression("zlib cannot reset"))
            }
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw OSMReadError(file: path, offset: fileOffset, reason: .compression(message))
        }
        return (consumed, produced)
    }

    /// The whole zlib stream `input` inflated to exactly `expectedSize` bytes (a PBF blob's `raw_size`).
    static func inflateZlib(_ input: ArraySlice<UInt8>, expectedSize: Int, path: String, offset: Int64) throws(OSMReadError) -> [UInt8] {
        let inflater = try Inflater(path: path, format: .zlib)
        var output: [UInt8] = []
        output.reserveCapacity(expectedSize)
        var rest = input
        while true {
            let room = expectedSize + 1 - output.count
            let (consumed, produced) = try inflater.inflate(rest, appendingTo: &output, limit: max(room, 1), fileOffset: offset)
            rest = rest.dropFirst(consumed)
            if inflater.isBetweenMembers { break }
            guard output.count <= expectedSize else {
                throw OSMReadError(file: path, offset: offset, reason: .malformed("a zlib blob inflates to more than its raw_size \(expectedSize)"))
            }
            if consumed == 0, produced == 0 {
                throw OSMReadError(file: path, offset: offset, reason: .compression("the zlib blob ends before its stream does"))
            }
        }
        guard output.count == expectedSize else {
            throw OSMReadError(file: path, offset: offset,
                               reason: .malformed("a zlib blob inflated to \(output.count) bytes, its raw_size says \(expectedSize)"))
        }
        return output
    }
}

extension Array where Element == UInt8 {
    /// Lets `fill` write up to `count` bytes into scratch room and appends the first `n` it reports (`n` ≤ `count`; a
    /// negative `n` appends nothing and is returned as it is, for the caller's error). One copy of what was written —
    /// not `count` zeros appended and cut back, which a debug build does a byte at a time (seconds per extract).
    mutating func appendBytes(upTo count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> Int {
        guard count > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { room in
            let n = Swift.min(fill(room), count)
            if n > 0 { append(contentsOf: UnsafeBufferPointer(rebasing: room[..<n])) }
            return n
        }
    }
}
