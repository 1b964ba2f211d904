#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A reader of one strict, common shape of JSON, for the readers of hot request bodies (ServiceKit's
/// `FastJSONReadable`: a trip's chunk of samples, a navigation position update) and of hot stored events
/// (``JSONReadable``: a trip's sealed chunk) that skip `Codable`. It reads objects of plain member names (at most 32
/// ASCII letters, no escapes), arrays, numbers (converted with `strtod`, as Foundation does; those whose
/// conversion Foundation treats otherwise — overflow, underflow — are refused) and plain ASCII strings (no escapes, no
/// controls). Anything else makes the reader answer `nil` (a `false` member, a `nil` value), and the caller leaves the
/// body to `JSONDecoder` — so errors, and every body it does not read, are decoded exactly as they always were. It never
/// reads a repeated member name as anything but a refusal (the readers check that each member comes once).
public struct StrictJSONCursor {
    public let bytes: UnsafeBufferPointer<UInt8>
    public var at = 0

    public init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The value `read` reads from the whole of `data` (only white space may follow it), or `nil`.
    public static func read<Value>(_ data: Data, _ read: (inout StrictJSONCursor) -> Value?) -> Value? {
        data.withUnsafeBytes { raw -> Value? in
            var cursor = StrictJSONCursor(bytes: raw.bindMemory(to: UInt8.self))
            guard let value = read(&cursor), cursor.atEnd() else { return nil }
            return value
        }
    }

    /// Whether only white space is left.
    public mutating func atEnd() -> Bool {
        skipSpace()
        return at == bytes.count
    }

    /// A string of printable ASCII without escapes (`"2027-01-15T08:00:00.000Z"`); `nil` for anything else.
    public mutating func plainString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        skipPlainWords()
        while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
            guard (0x20...0x7E).contains(bytes[at]), bytes[at] != UInt8(ascii: "\\") else { return nil }
            at += 1
        }
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
    }

    /// Moves over whole 8-byte words of printable ASCII other than `"` and `\` (a sealed value's base64 is 100–300 KB
    /// of them), stopping before the first word that holds anything else; the byte loop of ``plainString()`` takes
    /// the rest. Each test is exact for words of bytes below 0x80 (the first one leaves the others' words to the byte
    /// loop): a byte below 0x20, 0x7F, `"` (0x22) or `\` (0x5C).
    private mutating func skipPlainWords() {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        guard let base = UnsafeRawPointer(bytes.baseAddress) else { return }
        while at + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let special = (word & high)                                   // not ASCII
                | ((word &- ones &* 0x20) & ~word & high)                 // a control (below 0x20)
                | ((word &+ ones) & high)                                 // 0x7F
                | ((quote &- ones) & ~quote & high)                       // "
                | ((backslash &- ones) & ~backslash & high)               // \
            guard special == 0 else { return }
            at += 8
        }
    }

    /// An object whose members are among `names` (ASCII member names as bytes), each once, each a number: every value is
    /// handed to `value` with its name's index, and the bit set of the names seen is returned (at most 64 names). No
    /// `String` is made for a member name and no array for the values: a ride's chunk holds 3,000 such objects.
    public mutating func numbers(_ names: [[UInt8]], _ value: (Int, Double) -> Void) -> Int? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen = 0
        if take(UInt8(ascii: "}")) { return seen }
        repeat {
            guard let index = keyIndex(names), seen & (1 << index) == 0, take(UInt8(ascii: ":")), let number = number() else { return nil }
            seen |= 1 << index
            value(index, number)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? seen : nil
    }

    /// The index in `names` of the member name at the cursor (as ``key()`` reads one), `nil` for another name.
    private mutating func keyIndex(_ names: [[UInt8]]) -> Int? {
        guard let key = keyBytes() else { return nil }
        for (index, name) in names.enumerated() where name.count == key.count && name.elementsEqual(key) { return index }
        return nil
    }

    /// The bytes of a member name of at most 32 plain ASCII letters (no escapes), the cursor moved past its closing
    /// quote; `nil` for anything else.
    private mutating func keyBytes() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), at - start < 32 {
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[at] | 0x20) else { return nil }
            at += 1
        }
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        defer { at += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<at])
    }

    /// `{ "key": value, … }`, each value read by `member` (false: not of the shape).
    public mutating func object(_ member: (inout StrictJSONCursor, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = key(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    public mutating func array<Element>(_ element: (inout StrictJSONCursor) -> Element?) -> [Element]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if take(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let value = element(&self) else { return nil }
            elements.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? elements : nil
    }

    /// A member name of at most 32 plain ASCII letters (no escapes).
    public mutating func key() -> String? {
        keyBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// An integer without fraction or exponent.
    public mutating func integer() -> Int? {
        guard let (start, fraction) = numberToken(), !fraction else { return nil }
        return Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
    }

    /// A JSON number converted as `strtod` converts it; `nil` when it is not finite or longer than 63 characters.
    ///
    /// Most numbers of a request (coordinates, speeds, accelerations: up to 16 significant digits) take the exact fast
    /// path (Clinger's): their digits as an integer below 2^53 and a power of ten up to 10^22, both exact doubles, so
    /// one multiplication or division rounds correctly — the double `strtod` gives. `strtod` was a third of reading a
    /// ride's chunk. Up to 19 digits within ±27 take ``extendedNumber(_:)``. Anything else goes to `strtod`.
    public mutating func number() -> Double? {
        guard let (start, _) = numberToken(), at - start < 64 else { return nil }
        if let (negative, mantissa, exponent) = Self.decimal(UnsafeBufferPointer(rebasing: bytes[start..<at]), maximumDigits: 19),
           let exact = Self.exactNumber(negative, mantissa, exponent) ?? Self.extendedNumber(negative, mantissa, exponent) {
            return exact
        }
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

    /// Exact powers of ten as doubles (10^22 is the largest that is).
    private static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// `token` (a number of RFC 8259's grammar) converted exactly when its digits fit below 2^53 and its decimal
    /// exponent within ±22; `nil` otherwise.
    static func exactNumber(_ token: UnsafeBufferPointer<UInt8>) -> Double? {
        decimal(token, maximumDigits: 19).flatMap { exactNumber($0, $1, $2) }
    }

    private static func exactNumber(_ negative: Bool, _ mantissa: UInt64, _ exponent: Int) -> Double? {
        guard mantissa <= 1 << 53, (-22...22).contains(exponent) else { return nil }
        var value = Double(mantissa)
        value = exponent >= 0 ? value * powersOfTen[exponent] : value / powersOfTen[-exponent]
        return negative ? -value : value
    }

    #if arch(x86_64)
    /// Exact powers of ten in x87 extended precision (64-bit significand): 10^27 = 5^27 · 2^27, and 5^27 < 2^64.
    private static let extendedPowersOfTen: [Float80] = (0...27).map { exponent in (0..<exponent).reduce(Float80(1)) { value, _ in value * 10 } }
    #endif

    /// `token` with up to 19 significant digits and a decimal exponent within ±27 — the 17-digit numbers phones write
    /// (shortest round trip, `%.17g`), which miss ``exactNumber(_:)`` — converted with one operation in x87 extended
    /// precision: the digits below 2^64 and the power of ten are exact there, so the product or quotient is the exact
    /// value correctly rounded to 64 bits. Rounding that to a double gives the correctly rounded double unless it fell
    /// exactly halfway between two doubles (every such midpoint is an extended value, so an exact value on either side
    /// of one rounds to that side of it or onto it): those are left to `strtod`, as is everything else and every other
    /// architecture (`nil`).
    static func extendedNumber(_ token: UnsafeBufferPointer<UInt8>) -> Double? {
        decimal(token, maximumDigits: 19).flatMap { extendedNumber($0, $1, $2) }
    }

    private static func extendedNumber(_ negative: Bool, _ mantissa: UInt64, _ exponent: Int) -> Double? {
        #if arch(x86_64)
        guard (-27...27).contains(exponent) else { return nil }
        let power = extendedPowersOfTen[abs(exponent)]
        let extended = exponent >= 0 ? Float80(mantissa) * power : Float80(mantissa) / power
        let value = Double(extended)
        let near = Float80(value)
        if near != extended {
            let other = Float80(extended > near ? value.nextUp : value.nextDown)
            if (near + other) / 2 == extended { return nil }
        }
        guard value.isFinite, value == 0 || value.magnitude >= .leastNormalMagnitude else { return nil }
        return negative ? -value : value
        #else
        return nil
        #endif
    }

    /// `token`'s sign, significant digits as an integer (at most `maximumDigits` of them, not counting leading zeros)
    /// and decimal exponent; `nil` with more digits or an exponent beyond ±1,000.
    private static func decimal(_ token: UnsafeBufferPointer<UInt8>, maximumDigits: Int) -> (negative: Bool, mantissa: UInt64, exponent: Int)? {
        var index = 0, mantissa: UInt64 = 0, exponent = 0, digits = 0
        let negative = token.first == UInt8(ascii: "-")
        if negative { index += 1 }
        var inFraction = false
        while index < token.count {
            let byte = token[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                guard digits <= maximumDigits else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if inFraction { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < token.count {  // an exponent: e or E, a sign, digits
            index += 1
            var sign = 1, value = 0
            if token[index] == UInt8(ascii: "-") || token[index] == UInt8(ascii: "+") {
                sign = token[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
            }
            while index < token.count {
                value = value * 10 + Int(token[index] - UInt8(ascii: "0"))
                guard value <= 1_000 else { return nil }
                index += 1
            }
            exponent += sign * value
        }
        return (negative, mantissa, exponent)
    }

    /// Moves over a number of RFC 8259's grammar: where it starts and whether it has a fraction or exponent; `nil` when
    /// the grammar does not match.
    public mutating func numberToken() -> (start: Int, fraction: Bool)? {
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

    public mutating func digits() -> Int {
        let start = at
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
        return at - start
    }

    public mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    public mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }
}

