import Contracts
import Foundation
import Testing

/// ``JSONOutput`` against Foundation's `JSONEncoder` — the oracle it must equal byte for byte: numbers (edge cases and
/// 20,000 random values of every magnitude), strings (every ASCII byte, controls, slashes in both styles, non-ASCII),
/// UUIDs, dates, and whole objects with nested values and absent optionals in both styles.
@Suite("JSONOutput")
struct JSONOutputTests {
    /// `JSONEncoder`'s bytes for `value` in `style`'s configuration (a one-element array, brackets removed, so that
    /// scalars are written as members are).
    private static func encoded(_ value: some Encodable, style: JSONOutput.Style) throws -> String {
        let encoder = style == .contract ? ContractJSON.encoder : serviceEncoder
        let text = String(decoding: try encoder.encode([value]), as: UTF8.self)
        return String(text.dropFirst().dropLast())
    }

    /// ServiceKit's `ServiceJSON.makeEncoder()` (this target does not link ServiceKit): dates as RFC 3339 UTC with
    /// milliseconds through Foundation's `ISO8601FormatStyle`.
    static let serviceEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(style))
        }
        return encoder
    }()

    private static func written(_ style: JSONOutput.Style, _ write: (inout JSONOutput) -> Void) -> String? {
        var output = JSONOutput(style: style)
        write(&output)
        return output.failed ? nil : String(decoding: output.bytes, as: UTF8.self)
    }

    static let edgeDoubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.5, 1.5, 100, 1e15 - 1, 1e15, 1e15 + 0.5, 1e16, 1e21, 1e22, 1e-7, 1e-6, 0.000123, 2.5e-5,
        123_456_789.123, 48.412_345_678_9, 15.6, 1_234_567, 12_345_678_901_234_567_890, 0.1 + 0.2, .leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_993, -9.5e14, 4.5e15,
    ]

    @Test("doubles: edge cases and 20,000 random values are written as JSONEncoder writes them, in both styles")
    func doubles() throws {
        var generator = SystemRandomNumberGenerator()
        var values = Self.edgeDoubles
        for _ in 0..<5_000 { values.append(Double(bitPattern: generator.next())) }
        for _ in 0..<5_000 { values.append(Double.random(in: -1_000_000...1_000_000, using: &generator)) }
        for _ in 0..<5_000 { values.append((Double.random(in: -20_000...20_000, using: &generator) * 10).rounded() / 10) }
        for _ in 0..<5_000 { values.append(Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator))) }
        for value in values where value.isFinite {
            for style in [JSONOutput.Style.contract, .service] {
                let mine = Self.written(style) { $0.value(value) }
                #expect(mine == (try Self.encoded(value, style: style)), "\(value)")
            }
        }
    }

    @Test("a non-finite double is refused (JSONEncoder throws for it)")
    func nonFinite() {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(Self.written(.contract) { $0.value(value) } == nil)
            #expect(throws: (any Error).self) { try ContractJSON.encode([value]) }
        }
    }

    @Test("integers: zero, extremes and random values")
    func integers() throws {
        var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, .max, .min, .max - 1, .min + 1]
        for _ in 0..<2_000 { values.append(Int64.random(in: .min ... .max)) }
        for value in values {
            #expect(Self.written(.contract) { $0.value(value) } == (try Self.encoded(value, style: .contract)))
        }
    }

    @Test("strings: every ASCII character, controls, quotes, slashes (escaped only in the service style) and non-ASCII text")
    func strings() throws {
        var texts = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        texts += ["", "a/b", "https://example.org/x?y=1", "Ringstraße", "Turn left onto \"Main\"", "back\\slash", "tab\there",
                  "line\nbreak", "\u{2028}\u{2029}", "😀 emoji", "Ĉu ĉi tio?", "日本語", "\u{7F}\u{80}\u{FFFD}", "e\u{301}"]
        for _ in 0..<500 {
            let scalars = (0..<Int.random(in: 0...20)).compactMap { _ in UnicodeScalar(UInt32.random(in: 0...0x2FFF)) }
            texts.append(String(String.UnicodeScalarView(scalars)))
        }
        // A string that is not stored as contiguous UTF-8 (bridged or lazily built) takes the copying path.
        texts.append(String(repeating: "ab/\"", count: 100))
        for text in texts {
            for style in [JSONOutput.Style.contract, .service] {
                #expect(Self.written(style) { $0.value(text) } == (try Self.encoded(text, style: style)), "\(text.unicodeScalars.map(\.value))")
            }
        }
    }

    @Test("UUIDs are their upper-case uuidString")
    func uuids() throws {
        for _ in 0..<500 {
            let id = UUID()
            #expect(Self.written(.contract) { $0.value(id) } == (try Self.encoded(id, style: .contract)))
        }
    }

    @Test("dates: ContractJSON's RFC 3339 at microseconds; the service style's milliseconds as Foundation's ISO8601FormatStyle cuts them")
    func dates() throws {
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_341_600), Date(timeIntervalSince1970: 1_795_341_600.5),
                     Date(timeIntervalSince1970: 1_795_341_600.123456), Date(timeIntervalSinceReferenceDate: 0),
                     Date(timeIntervalSince1970: 1_173_678_386.28), Date(timeIntervalSince1970: 484_153_840.588),
                     Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 253_402_300_799.999)]
        for _ in 0..<2_000 { dates.append(Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000))) }
        for date in dates {
            #expect(Self.written(.contract) { $0.value(date) } == (try Self.encoded(date, style: .contract)))
        }
        // The service style against Foundation: stored timestamps (microseconds), milliseconds, any double, across
        // 1970…2100 (these cases found that Foundation cuts the milliseconds from the seconds since 2001, not 1970).
        var generator = SystemRandomNumberGenerator()
        for index in 0..<200_000 {
            let date = switch index % 4 {
            case 0: Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000_000, using: &generator)) / 1e6)
            case 1: Date(timeIntervalSince1970: Double.random(in: 0...4_102_444_800, using: &generator))
            case 2: Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000, using: &generator)) / 1e3)
            default: Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -978_307_200_000_000...3_124_137_600_000_000, using: &generator)) / 1e6)
            }
            let mine = Self.written(.service) { $0.value(date) }
            let expected = try Self.encoded(date, style: .service)
            if mine != expected {
                Issue.record("\(date.timeIntervalSince1970): \(mine ?? "refused") against \(expected)")
                break
            }
        }
        for date in dates.prefix(9) {
            #expect(Self.written(.service) { $0.value(date) } == (try Self.encoded(date, style: .service)))
        }
        #expect(Self.written(.contract) { $0.value(Date(timeIntervalSinceReferenceDate: 1e15)) } == nil)
        #expect(Self.written(.service) { $0.value(Date(timeIntervalSinceReferenceDate: 1e15)) } == nil)
        #expect(Self.written(.service) { $0.value(Date(timeIntervalSince1970: -1)) } == nil)
    }

    /// A value with every kind of member, nested, written in both styles.
    struct Sample: Encodable, Equatable {
        struct Inner: Encodable, Equatable {
            var zeta: String
            var alpha: Double?
        }

        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var id: UUID
        var at: Date
        var tags: [String]
        var point: [Double]?
        var inner: Inner?
        var note: String?

        func write(to output: inout JSONOutput) {
            output.object { output in
                switch output.style {
                case .contract:
                    output.member("at", at)
                    output.member("count", count)
                    output.member("flag", flag)
                    output.member("id", id)
                    output.key("inner")
                    if let inner { Self.write(inner, to: &output) }
                    output.member("name", name)
                    output.member("note", note)
                    if let point { output.member("point", point) }
                    output.member("ratio", ratio)
                    output.member("tags", tags)
                case .service:
                    output.member("name", name)
                    output.member("count", count)
                    output.member("ratio", ratio)
                    output.member("flag", flag)
                    output.member("id", id)
                    output.member("at", at)
                    output.member("tags", tags)
                    if let point { output.member("point", point) }
                    output.key("inner")
                    if let inner { Self.write(inner, to: &output) }
                    output.member("note", note)
                }
            }
        }

        static func write(_ inner: Inner, to output: inout JSONOutput) {
            output.object { output in
                if output.style == .contract {
                    output.member("alpha", inner.alpha)
                    output.member("zeta", inner.zeta)
                } else {
                    output.member("zeta", inner.zeta)
                    output.member("alpha", inner.alpha)
                }
            }
        }
    }

    @Test("objects: member order, commas, nesting and absent optionals equal JSONEncoder's (sorted keys; declaration order)")
    func objects() throws {
        for index in 0..<200 {
            let sample = Sample(name: "n/\(index)\n", count: index - 100, ratio: Double(index) / 7, flag: index.isMultiple(of: 2), id: UUID(),
                                at: Date(timeIntervalSince1970: 1_795_341_600 + Double(index) * 0.001),
                                tags: (0..<(index % 4)).map { "t\($0)" }, point: index % 3 == 0 ? nil : [16.1, Double(index)],
                                inner: Sample.Inner(zeta: "z", alpha: index % 5 == 0 ? nil : 0.25), note: index % 2 == 0 ? nil : "note")
            // `inner` is always present here (the writer above writes its key unconditionally).
            let contract = Self.written(.contract) { sample.write(to: &$0) }
            #expect(contract == String(decoding: try ContractJSON.encode(sample), as: UTF8.self))
            var service = JSONOutput(style: .service)
            sample.write(to: &service)
            #expect(!service.failed)
            #expect(JSONOutput.equivalent(Data(service.bytes), try Self.serviceEncoder.encode(sample)))
        }
    }

    private struct NoDate: Encodable {
        var name: String
        var values: [Double]
        var inner: Sample.Inner
        var empty: [String]
    }

    @Test("the service style says what a default JSONEncoder says (slashes escaped), in declaration order")
    func serviceObjects() throws {
        for index in 0..<200 {
            let value = NoDate(name: "a/b \(index)", values: (0..<index % 5).map { Double($0) * 1.5 }, inner: .init(zeta: "/", alpha: index % 2 == 0 ? nil : -0.0),
                               empty: [])
            let mine = Self.written(.service) { output in
                output.object { output in
                    output.member("name", value.name)
                    output.member("values", value.values)
                    output.key("inner")
                    Sample.write(value.inner, to: &output)
                    output.member("empty", value.empty)
                }
            }
            let expected = try JSONEncoder().encode(value)
            #expect(JSONOutput.equivalent(Data(try #require(mine).utf8), expected))
            // The same bytes as a sorted-keys encoder would give once both are sorted; and members in the order written.
            #expect(mine?.hasPrefix(#"{"name":"a\/b \#(index)","values":["#) == true)
            #expect(!JSONOutput.equivalent(Data((mine ?? "").replacingOccurrences(of: "\"name\"", with: "\"nome\"").utf8), expected))
        }
    }

    @Test("JSONEncoder without sorted keys has no fixed member order, so service-style writers are checked for equivalence")
    func equivalence() {
        #expect(JSONOutput.equivalent(Data(#"{"a":1,"b":[1,2,{"c":"/"}]}"#.utf8), Data(#"{"b":[1,2,{"c":"\/"}],"a":1}"#.utf8)))
        #expect(!JSONOutput.equivalent(Data(#"{"a":1}"#.utf8), Data(#"{"a":2}"#.utf8)))
        #expect(!JSONOutput.equivalent(Data(#"{"a":1}"#.utf8), Data(#"{"a":1,"b":null}"#.utf8)))
        #expect(!JSONOutput.equivalent(Data("{".utf8), Data("{".utf8)))
    }
}
