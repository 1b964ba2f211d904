import Foundation

/// JSON written straight into bytes, exactly as Foundation's `JSONEncoder` writes the same values — for the few hot
/// types whose `Codable` encoding dominates a request's CPU (a navigation position update's event and answer). A type
/// opts in with ``JSONWritable``; everything else, and any value this writer cannot take, is encoded by `JSONEncoder`.
///
/// What "exactly" means, checked against `JSONEncoder` in `JSONOutputTests` and, in debug builds, on every value
/// written (``ContractJSON/encode(_:)`` and ServiceKit's `JSONWritableResponse` compare the two and stop on a
/// difference, so the whole test suite is the oracle):
/// - numbers: a `Double` as its shortest round-trip `description` without a trailing `.0` (`100`, `0.1`, `1e+16`,
///   `-0`), integers in decimal; a non-finite `Double` is refused (``failed``; `JSONEncoder` throws for it);
/// - strings: `"` and `\` escaped, `\b \f \n \r \t`, other controls below U+0020 as `\u00xx` (lower-case hex),
///   `/` as `\/` unless ``Style/escapesSlashes`` is off, everything else as UTF-8;
/// - `UUID` as its upper-case `uuidString`; dates as the style's RFC 3339 form (``Style/contract``: ``RFC3339Timestamp``;
///   ``Style/service``: milliseconds, as ServiceKit's `ServiceJSON`; a date it cannot write is refused);
/// - members in the order the writer calls them: the type writes them sorted for ``Style/contract`` (`.sortedKeys`:
///   byte for byte `JSONEncoder`'s output) and in declaration order for ``Style/service`` — there `JSONEncoder` itself
///   has no fixed order (without `.sortedKeys` it writes members in its dictionary's hash order, which changes from
///   process to process), so the check is that both say the same (``equivalent(_:_:)``); nil optionals are left out
///   as synthesised `Codable` leaves them out.
public struct JSONOutput {
    /// The two configurations of Waypoint's encoders.
    public enum Style: Sendable {
        /// ``ContractJSON``: sorted keys, slashes not escaped, RFC 3339 dates at the stores' microsecond precision.
        case contract
        /// ServiceKit's HTTP answers: declaration order, slashes escaped (`JSONEncoder`'s default), dates as
        /// `ServiceJSON` writes them (RFC 3339 UTC with milliseconds).
        case service

        var escapesSlashes: Bool { self == .service }
    }

    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    public let style: Style
    /// Something was asked that this writer does not write as `JSONEncoder` would (a non-finite number, a date out of
    /// range, a value the type leaves to `JSONEncoder`): the bytes must not be used.
    public private(set) var failed = false
    /// Whether the next member or element is the first of its container (no comma before it).
    private var first = true

    public init(style: Style, capacity: Int = 512) {
        self.style = style
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Gives up: the value is left to `JSONEncoder`.
    public mutating func fail() { failed = true }

    // MARK: Containers

    /// `{ … }` around what `body` writes.
    public mutating func object(_ body: (inout JSONOutput) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        first = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    /// `[ … ]` around what `body` writes; each element starts with ``element()``.
    public mutating func array(_ body: (inout JSONOutput) -> Void) {
        bytes.append(UInt8(ascii: "["))
        first = true
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    /// `[ … ]` of `elements`, each written by `write` (the commas between them written here).
    public mutating func array<Elements: Sequence>(of elements: Elements, _ write: (inout JSONOutput, Elements.Element) -> Void) {
        array { output in
            for element in elements {
                output.element()
                write(&output, element)
            }
        }
    }

    /// Starts an array element (the comma before every element but the first).
    public mutating func element() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    /// Starts a member: `"name":`. Names are Swift property names (ASCII letters and digits: nothing to escape).
    public mutating func key(_ name: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts a member whose name is only known at run time (a dictionary's key): escaped as any string.
    public mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        value(name)
        bytes.append(UInt8(ascii: ":"))
    }

    // MARK: Values

    public mutating func value(_ value: Double) {
        guard value.isFinite else { return fail() }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            if value == 0, value.sign == .minus {
                bytes.append(contentsOf: "-0".utf8)
            } else {
                self.value(Int64(value))
            }
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func value(_ value: Int) { self.value(Int64(value)) }

    public mutating func value(_ value: Int64) {
        if value == 0 { return bytes.append(UInt8(ascii: "0")) }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, filled from the end
        withUnsafeMutableBytes(of: &digits) { raw in
            var at = raw.count
            while magnitude > 0 {
                at -= 1
                raw[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            bytes.append(contentsOf: raw[at...])
        }
    }

    public mutating func value(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func value(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        let escapesSlashes = style.escapesSlashes
        var utf8 = value.utf8
        let plain = utf8.withContiguousStorageIfAvailable { buffer -> Bool in
            for byte in buffer where Self.needsEscape(byte, escapesSlashes) { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if plain != true {
            if plain == nil {
                var copy = value
                copy.makeContiguousUTF8()
                utf8 = copy.utf8
            }
            for byte in utf8 {
                guard Self.needsEscape(byte, escapesSlashes) else {
                    bytes.append(byte)
                    continue
                }
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `uuidString`: upper-case, with dashes.
    public mutating func value(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: value.uuid) { raw in
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(Self.upperHexDigits[Int(byte >> 4)])
                bytes.append(Self.upperHexDigits[Int(byte & 0x0F)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A date as the style writes it: ``Style/contract``: ``RFC3339Timestamp``; ``Style/service``: ServiceKit's
    /// `Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)`, i.e. `2025-05-01T09:30:00.123Z`
    /// with the milliseconds cut (not rounded) from the seconds since 2001 as Foundation cuts them (`JSONOutputTests`
    /// holds it to Foundation over 200,000 random dates). Dates before 1970 or after 9999 are refused.
    public mutating func value(_ value: Date) {
        switch style {
        case .contract:
            guard let text = RFC3339Timestamp.string(from: value) else { return fail() }
            self.value(text)
        case .service:
            writeServiceTimestamp(value)
        }
    }

    private mutating func writeServiceTimestamp(_ date: Date) {
        let sinceReference = date.timeIntervalSinceReferenceDate
        // 1970-01-01 … 9999-12-31T23:59:59.999 as seconds since 2001.
        guard sinceReference >= -978_307_200, sinceReference < 252_423_993_600 else { return fail() }
        let whole = sinceReference.rounded(.down)
        Self.appendMillisecondTimestamp(unixSeconds: Int64(whole) + 978_307_200,
                                        milliseconds: Int64(((sinceReference - whole) * 1000).rounded(.down)), to: &bytes)
    }

    /// Appends `"YYYY-MM-DDThh:mm:ss.mmmZ"` (quoted; UTC) for `unixSeconds` (1970…9999) and `milliseconds` (0…1000,
    /// 1000 carried into the seconds): the service style's dates, and ServiceKit's log timestamps.
    public static func appendMillisecondTimestamp(unixSeconds: Int64, milliseconds: Int64, to bytes: inout [UInt8]) {
        var seconds = unixSeconds, milliseconds = milliseconds
        if milliseconds >= 1000 {
            milliseconds -= 1000
            seconds += 1
        }
        let days = seconds / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.civil(fromDaysSinceEpoch: Int(days))
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        bytes.append(UInt8(ascii: "\""))
        digits(Int64(year), 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(month), 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(day), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 3600 / 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "."))
        digits(milliseconds, 3)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Members

    /// `"name":value`.
    public mutating func member(_ name: StaticString, _ value: some JSONScalar) {
        key(name)
        value.write(to: &self)
    }

    /// Left out when `nil`, as synthesised `Codable` leaves out a `nil` optional.
    public mutating func member(_ name: StaticString, _ value: (some JSONScalar)?) {
        if let value { member(name, value) }
    }

    /// `"name":[…]`.
    public mutating func member(_ name: StaticString, _ values: [some JSONScalar]) {
        key(name)
        array { output in
            for value in values {
                output.element()
                value.write(to: &output)
            }
        }
    }

    /// A nested value written by its own ``JSONWritable`` conformance; left out when `nil`.
    public mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { return }
        key(name)
        value.write(to: &self)
    }

    /// `"name":[…]` of values that write themselves.
    public mutating func member(_ name: StaticString, _ values: [some JSONWritable]) {
        key(name)
        array(of: values) { output, value in value.write(to: &output) }
    }

    /// `"name":{…}` of a `[String: …]` dictionary, its members in ascending order of their keys' UTF-8 bytes (a
    /// dictionary has no order of its own; `JSONEncoder` writes hash order, which changes from process to process).
    public mutating func member(_ name: StaticString, _ dictionary: [String: some JSONScalar]) {
        key(name)
        object { output in
            for (key, value) in dictionary.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                output.key(key)
                value.write(to: &output)
            }
        }
    }

    /// Whether two JSON texts say the same: equal after both are parsed and written again with sorted keys (the
    /// check for ``Style/service`` writers, whose member order `JSONEncoder` does not fix).
    public static func equivalent(_ first: Data, _ second: Data) -> Bool {
        func canonical(_ data: Data) -> Data? {
            guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
            return try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        }
        guard let first = canonical(first), let second = canonical(second) else { return false }
        return first == second
    }

    private static func needsEscape(_ byte: UInt8, _ escapesSlashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (escapesSlashes && byte == UInt8(ascii: "/"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)
}

/// A value ``JSONOutput`` writes as one JSON scalar (its `value(_:)` for the type), so that one `member(_:_:)` writes
/// members of any of these types, optional or in an array.
public protocol JSONScalar {
    func write(to output: inout JSONOutput)
}

extension Double: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension Int: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension Int64: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension Bool: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension String: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension UUID: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

extension Date: JSONScalar {
    public func write(to output: inout JSONOutput) { output.value(self) }
}

/// A type that writes itself as `JSONEncoder` would (``JSONOutput``) — a fast path for hot values, never a second
/// format: ``ContractJSON/encode(_:)`` uses it for ``JSONOutput/Style/contract`` writers, ServiceKit's
/// `JSONWritableResponse` for ``JSONOutput/Style/service`` ones, and debug builds check every result against
/// `JSONEncoder`.
public protocol JSONWritable: Encodable {
    /// The style this type's members are ordered for.
    static var jsonStyle: JSONOutput.Style { get }
    /// Writes the value (an object: `output.object { … }`), or calls ``JSONOutput/fail()`` to leave it to
    /// `JSONEncoder`.
    func write(to output: inout JSONOutput)
}

extension JSONWritable {
    /// The value's bytes, or `nil` when the writer gave up (``JSONOutput/failed``) or was asked in another style than
    /// its own.
    public func jsonBytes(style: JSONOutput.Style) -> [UInt8]? {
        guard style == Self.jsonStyle else { return nil }
        var output = JSONOutput(style: style)
        write(to: &output)
        return output.failed ? nil : output.bytes
    }
}
