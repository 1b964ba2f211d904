@testable import Contracts
import Testing

@Suite("Strict JSON cursor: plain strings")
struct StrictJSONStringTests {
    /// The cursor's plain string at the start of `bytes`, and where it stopped.
    private func read(_ bytes: [UInt8]) -> (String?, Int) {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = StrictJSONCursor(bytes: buffer)
            let value = cursor.plainString()
            return (value, cursor.at)
        }
    }

    /// What a plain string is, byte by byte: printable ASCII up to the closing quote, no backslash.
    private func reference(_ bytes: [UInt8]) -> String? {
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        var end = 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard (0x20...0x7E).contains(bytes[end]), bytes[end] != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        return String(decoding: bytes[1..<end], as: UTF8.self)
    }

    @Test("every byte value at every position of a long string, and every length: the word scan agrees with the byte rule")
    func everyByteEverywhere() {
        let base = Array("QUJD/+9zQUJD/+9zQUJD/+9zQUJD/+9zQUJD/+9z".utf8)  // base64, 40 bytes
        for position in 0..<base.count {
            for byte in UInt8.min...UInt8.max {
                var body = base
                body[position] = byte
                let bytes = [UInt8(ascii: "\"")] + body + Array("\",\"x\":1}".utf8)
                let (value, _) = read(bytes)
                #expect(value == reference(bytes), "byte \(byte) at \(position)")
            }
        }
        for length in 0..<70 {
            let body = (0..<length).map { base[$0 % base.count] }
            for tail in [Array("\"".utf8), Array("\"}".utf8), Array("\" , \"k\": 2}".utf8), []] {
                let bytes = [UInt8(ascii: "\"")] + body + tail
                let (value, at) = read(bytes)
                #expect(value == reference(bytes), "length \(length), tail \(tail)")
                if value != nil { #expect(at == length + 2, "stops after the closing quote") }
            }
        }
    }

    @Test("a sealed value's 200 KB of base64 reads whole")
    func long() {
        let text = String(repeating: "QUJD/+9zMTIzNDU2Nzg5", count: 10_000)
        let bytes = Array("\"\(text)\"".utf8)
        #expect(read(bytes).0 == text)
        var broken = bytes
        broken[123_457] = 0x0A
        #expect(read(broken).0 == nil, "a newline deep inside")
        broken[123_457] = UInt8(ascii: "\\")
        #expect(read(broken).0 == nil, "an escape deep inside")
        broken[123_457] = 0xC3
        #expect(read(broken).0 == nil, "non-ASCII deep inside")
    }
}
