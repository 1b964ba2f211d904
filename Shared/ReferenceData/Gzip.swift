import CZlib
import Foundation

/// Decompression of gzip files (RFC 1952) through the system zlib: the reference data ships gzip-compressed.
public enum Gzip {
    /// Why a gzip stream could not be read.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The decompressed contents of the gzip file at `url` (concatenated members included).
    public static func decompress(contentsOf url: URL) throws -> Data {
        try decompress(try Data(contentsOf: url))
    }

    /// Decompresses gzip `data`, reading the input once and growing the output in 1 MiB steps.
    public static func decompress(_ data: Data) throws -> Data {
        var stream = z_stream()
        // 16 + MAX_WBITS: expect a gzip header and trailer (CRC-32 and length are checked by zlib).
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Error(description: "zlib cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            guard let base = input.bindMemory(to: Bytef.self).baseAddress else { return }
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = uInt(input.count)
            var status: Int32 = Z_OK
            repeat {
                status = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(chunk)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return status
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw Error(description: "not valid gzip data (zlib status \(status))")
                }
                output.append(buffer, count: chunk - Int(stream.avail_out))
                // Another member may follow (gzip allows concatenation).
                if status == Z_STREAM_END, stream.avail_in > 0 {
                    guard inflateReset(&stream) == Z_OK else { throw Error(description: "zlib cannot reset") }
                    status = Z_OK
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
