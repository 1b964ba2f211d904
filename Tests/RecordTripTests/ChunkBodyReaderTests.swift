import Foundation
@testable import RecordTrip
import RecordTripAnalysis
import ServiceKit
import Testing

/// The fast chunk reader against its oracle, Foundation's `JSONDecoder` (the decoder every other body goes through):
/// whatever it reads, `JSONDecoder` reads the same; what it leaves, `JSONDecoder` decides as before.
@Suite struct ChunkBodyReaderTests {
    /// A SplitMix64 stream, so a failure repeats.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func pick<T>(_ options: [T]) -> T { options[Int(next() % UInt64(options.count))] }
    }

    /// A number written as phones and encoders do: Swift's shortest form (with exponents for small and large values),
    /// fixed digits, an integer, or an explicit exponent.
    static func number(_ value: Double, _ r: inout Random) -> String {
        switch r.next() % 4 {
        case 0: "\(value)"
        case 1: String(format: "%.6f", value)
        case 2: String(format: "%.0f", value.rounded())
        default: String(format: "%.5E", value)
        }
    }

    /// A chunk body of random content and layout (member order, whitespace, optional members left out).
    static func body(_ r: inout Random) -> String {
        func space() -> String { r.pick(["", " ", "\n  ", "\t"]) }
        func object(_ members: [(String, String)]) -> String {
            var shuffled = members
            for index in shuffled.indices.reversed() { shuffled.swapAt(index, Int(r.next() % UInt64(index + 1))) }
            return "{" + shuffled.map { "\(space())\"\($0.0)\"\(space()):\(space())\($0.1)" }.joined(separator: ",") + space() + "}"
        }
        let fixes = (0..<Int(r.next() % 20)).map { _ in
            var members = [("time", number(1_790_000_000 + r.unit() * 1e5, &r)), ("lat", number(r.unit() * 180 - 90, &r)),
                           ("lng", number(r.unit() * 360 - 180, &r))]
            for name in ["altitude", "accuracy", "speed", "course"] where r.next() % 3 != 0 {
                members.append((name, number((r.unit() - 0.2) * pow(10, Double(r.next() % 12) - 6), &r)))
            }
            return object(members)
        }
        let acceleration = (0..<Int(r.next() % 60)).map { _ in
            object([("time", number(1_790_000_000 + r.unit(), &r)), ("x", number(r.unit() * 1e-4, &r)),
                    ("y", number(-r.unit() * 20, &r)), ("z", number(9.81 + r.unit(), &r))])
        }
        var members = [("sequence", "\(r.next() % 100_000)")]
        if r.next() % 5 != 0 { members.append(("fixes", "[" + fixes.joined(separator: "," + space()) + "]")) }
        if r.next() % 5 != 0 { members.append(("acceleration", "[" + acceleration.joined(separator: ",") + "]")) }
        return object(members)
    }

    static func same(_ a: ChunkRequest?, _ b: ChunkRequest?) -> Bool {
        a?.sequence == b?.sequence && a?.fixes == b?.fixes && a?.acceleration == b?.acceleration
    }

    static func oracle(_ text: String) -> ChunkRequest? {
        try? ServiceJSON.makeDecoder().decode(ChunkRequest.self, from: Data(text.utf8))
    }

    @Test("500 seeded bodies of the common shape: read, and equal to what JSONDecoder reads")
    func commonShape() {
        var r = Random(state: 19)
        for _ in 0..<500 {
            let text = Self.body(&r)
            let read = ChunkBodyReader.read(Data(text.utf8))
            #expect(read != nil, "not read: \(text.prefix(300))")
            #expect(Self.same(read, Self.oracle(text)), "differs from JSONDecoder: \(text.prefix(300))")
        }
    }

    @Test("every other body is left to JSONDecoder, and whatever is read equals JSONDecoder's result", arguments: [
        #"{"sequence":1,"sequence":2}"#, #"{"sequence":1,"fixes":null}"#, #"{"sequence":1,"extra":1}"#, #"{"sequence":"1"}"#,
        #"{"sequence":1.0}"#, #"{"sequence":99999999999999999999}"#, #"{"fixes":[]}"#, #"{"sequence":01}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":1e400,"y":0,"z":0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":1e-400,"y":0,"z":0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":4e-320,"y":0,"z":0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":0e-400,"y":-0,"z":0.0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":.5,"y":0,"z":0}]}"#, #"{"sequence":1,"acceleration":[{"time":1,"x":1.,"y":0,"z":0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":-,"y":0,"z":0}]}"#, #"{"sequence":1,"acceleration":[{"time":1,"x":+1,"y":0,"z":0}]}"#,
        #"{"sequence":1,"acceleration":[{"time":1,"x":NaN,"y":0,"z":0}]}"#, #"{"sequence":1,"acceleration":[{"time":1,"y":0,"z":0}]}"#,
        #"{"sequence":1,"fixes":[{"time":1,"lat":2,"lng":3,"speed":null}]}"#, #"{"sequence":1,"fixes":[{"time":1,"l\u0061t":2,"lng":3}]}"#,
        #"{"sequence":1,"fixes":[{"time":1,"lat":2,"lng":3},]}"#, #"{"sequence":1}x"#, #"[{"sequence":1}]"#, "", " ", "{",
    ])
    func otherBodies(text: String) {
        let read = ChunkBodyReader.read(Data(text.utf8))
        if read != nil { #expect(Self.same(read, Self.oracle(text)), "read differently from JSONDecoder") }
    }

    @Test("a body repeating a member name anywhere is never read (the decoder then refuses it with the duplicate scan)")
    func repeatedNames() {
        for text in [#"{"sequence":1,"sequence":1}"#, #"{"sequence":1,"fixes":[],"fixes":[]}"#,
                     #"{"sequence":1,"acceleration":[],"acceleration":[]}"#,
                     #"{"sequence":1,"fixes":[{"time":1,"lat":2,"lng":3,"lat":2}]}"#,
                     #"{"sequence":1,"fixes":[{"time":1,"lat":2,"lng":3,"speed":1,"speed":1}]}"#,
                     #"{"sequence":1,"acceleration":[{"time":1,"x":0,"y":0,"z":0,"x":0}]}"#] {
            #expect(ChunkBodyReader.read(Data(text.utf8)) == nil, "read: \(text)")
            #expect(JSONDuplicateKeys.firstDuplicate(in: Array(text.utf8)) != nil, "the scan finds it: \(text)")
        }
        // Seeded bodies with one member of one object written twice.
        var r = Random(state: 7)
        var checked = 0
        while checked < 300 {
            let text = Self.body(&r)
            let members = text.ranges(of: /"[a-z]+"\s*:\s*-?[0-9][0-9.eE+-]*/)
            guard let pick = members.isEmpty ? nil : members[Int(r.next() % UInt64(members.count))] else { continue }
            let repeated = String(text[..<pick.upperBound]) + "," + String(text[pick]) + String(text[pick.upperBound...])
            #expect(ChunkBodyReader.read(Data(repeated.utf8)) == nil, "read: \(repeated.prefix(300))")
            checked += 1
        }
    }

    @Test("a body cut at every byte, or with a byte changed: what is read, JSONDecoder reads the same; never a crash")
    func damaged() {
        var r = Random(state: 2026)
        var text = Array(Self.body(&r).utf8)
        while !(300..<2_000).contains(text.count) { text = Array(Self.body(&r).utf8) }  // a whole body, small enough to cut everywhere
        var readCount = 0
        for length in 0..<text.count {
            let cut = Data(text.prefix(length))
            if let read = ChunkBodyReader.read(cut) {
                readCount += 1
                #expect(Self.same(read, try? ServiceJSON.makeDecoder().decode(ChunkRequest.self, from: cut)))
            }
        }
        for _ in 0..<3_000 {
            var changed = text
            changed[Int(r.next() % UInt64(changed.count))] = r.pick(Array("0123456789-+.eE,:{}[]\" nul".utf8))
            let data = Data(changed)
            if let read = ChunkBodyReader.read(data) {
                readCount += 1
                #expect(Self.same(read, try? ServiceJSON.makeDecoder().decode(ChunkRequest.self, from: data)),
                        "\(String(decoding: changed, as: UTF8.self).prefix(300))")
            }
        }
        #expect(readCount > 0)
    }
}
