import Foundation
import RecordTripAnalysis
import ServiceKit

/// A fast reader of the common chunk body — `{"sequence": n, "fixes": [{…}], "acceleration": [{…}]}` with numbers only —
/// that skips `Codable` (Foundation's `JSONDecoder` was the largest cost of ingest). It reads only that strict shape:
/// anything else (another member, `null`, a string, an escape, a repeated member, a number the grammar or a `Double`
/// does not take) answers `nil`, and the caller decodes with `JSONDecoder` as before — so errors, and every body it
/// does not read, are decoded exactly as they were. Numbers are converted with `strtod`, as Foundation does.
enum ChunkBodyReader {
    /// The chunk, or `nil` when the body is not of the strict shape.
    static func read(_ data: Data) -> ChunkRequest? {
        data.withUnsafeBytes { raw in
            var cursor = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            return cursor.chunk()
        }
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    mutating func chunk() -> ChunkRequest? {
        var request = ChunkRequest(sequence: 0, fixes: nil, acceleration: nil)
        var seen = 0
        let complete = object { cursor, key in
            switch key {
            case "sequence":
                guard seen & 1 == 0, let value = cursor.integer() else { return false }
                (request.sequence, seen) = (value, seen | 1)
            case "fixes":
                guard seen & 2 == 0, let value = cursor.array({ $0.fix() }) else { return false }
                (request.fixes, seen) = (value, seen | 2)
            case "acceleration":
                guard seen & 4 == 0, let value = cursor.array({ $0.acceleration() }) else { return false }
                (request.acceleration, seen) = (value, seen | 4)
            default: return false
            }
            return true
        }
        skipSpace()
        return complete && seen & 1 == 1 && at == bytes.count ? request : nil
    }

    static let fixNames = ["time", "lat", "lng", "altitude", "accuracy", "speed", "course"]
    static let accelerationNames = ["time", "x", "y", "z"]

    mutating func fix() -> FixBody? {
        guard let (values, seen) = numbers(Self.fixNames), seen & 7 == 7 else { return nil }
        func optional(_ index: Int) -> Double? { seen & (1 << index) == 0 ? nil : values[index] }
        return FixBody(GPSFix(time: values[0], latitude: values[1], longitude: values[2], altitude: optional(3), accuracy: optional(4),
                              speed: optional(5), course: optional(6)))
    }

    mutating func acceleration() -> AccelerationSample? {
        guard let (values, seen) = numbers(Self.accelerationNames), seen == 15 else { return nil }
        return AccelerationSample(time: values[0], x: values[1], y: values[2], z: values[3])
    }

    /// An object whose members are among `names`, each once, each a number: the values by name index and a bit set of
    /// the names seen.
    mutating func numbers(_ names: [String]) -> ([Double], Int)? {
        var values = [Double](repeating: 0, count: names.count)
        var seen = 0
        let complete = object { cursor, key in
            guard let index = names.firstIndex(of: key), seen & (1 << index) == 0, let value = cursor.number() else { return false }
            (values[index], seen) = (value, seen | (1 << index))
            return true
        }
        return complete ? (values, seen) : nil
    }

    /// `{ "key": value, … }`, each value read by `member` (false: not of the shape).
    mutating func object(_ member: (inout Cursor, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = key(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    mutating func array<Element>(_ element: (inout Cursor) -> Element?) -> [Element]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if take(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let value = element(&self) else { return nil }
            elements.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? elements : nil
    }

    /// A member name of at most 16 plain ASCII letters (no escapes).
    mutating func key() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), at - start < 16 {
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[at] | 0x20) else { return nil }
            at += 1
        }
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        defer { at += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
    }

    /// An integer without fraction or exponent.
    mutating func integer() -> Int? {
        guard let (start, fraction) = numberToken(), !fraction else { return nil }
        return Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
    }

    /// A JSON number converted by `strtod`; `nil` when it is not finite or longer than 63 characters.
    mutating func number() -> Double? {
        guard let (start, _) = numberToken(), at - start < 64 else { return nil }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            for index in start..<at { buffer[index - start] = CChar(bitPattern: bytes[index]) }
            buffer[at - start] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        // Overflow, and underflow to a subnormal or to 0 from nonzero digits, are left to Foundation's own rules.
        guard value.isFinite, value == 0 || value.magnitude >= .leastNormalMagnitude else { return nil }
        if value == 0, bytes[start..<at].prefix(while: { $0 | 0x20 != UInt8(ascii: "e") }).contains(where: { (49...57).contains($0) }) {
            return nil
        }
        return value
    }

    /// Moves over a number of RFC 8259's grammar: where it starts and whether it has a fraction or exponent; `nil` when
    /// the grammar does not match.
    mutating func numberToken() -> (start: Int, fraction: Bool)? {
        skipSpace()
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        let integerStart = at
        guard digits() > 0, bytes[integerStart] != UInt8(ascii: "0") || at - integerStart == 1 else { return nil }
        var fraction = false
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { return nil }
            fraction = true
        }
        if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { return nil }
            fraction = true
        }
        return (start, fraction)
    }

    mutating func digits() -> Int {
        let start = at
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
        return at - start
    }

    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }
}

extension ChunkRequest: FastJSONReadable {
    /// ``ChunkBodyReader``.
    static func readFast(_ data: Data) -> ChunkRequest? { ChunkBodyReader.read(data) }
}
