/// One byte range of a `Range: bytes=…` request header (RFC 9110 §14.1.2).
public enum MediaByteRange: Sendable, Hashable {
    /// `bytes=first-last` (`last` clamped to the end) or `bytes=first-` (`last` is `nil`).
    case from(Int, through: Int?)
    /// `bytes=-n`: the last `n` bytes.
    case suffix(Int)

    /// What a `Range` header asks for.
    public enum Request: Sendable, Hashable {
        /// One range: answered with 206 or, when it lies outside the object, 416.
        case single(MediaByteRange)
        /// Several ranges: answered with the whole object (200). RFC 9110 §14.2 lets a server ignore `Range`, and
        /// media players ask for one range at a time, so `multipart/byteranges` is not implemented.
        case multiple
        /// Not a byte range this server understands (another unit, bad syntax, `last` < `first`): ignored as
        /// RFC 9110 §14.2 requires, so the whole object is answered.
        case ignored
    }

    /// Parses a `Range` header value.
    public static func parse(_ header: String) -> Request {
        let trimmed = header[...].trimmingWhitespace()
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingWhitespace().lowercased() == "bytes"
        else { return .ignored }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: true)
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
        guard !specs.isEmpty else { return .ignored }
        var ranges: [MediaByteRange] = []
        for spec in specs {
            guard let range = parseSpec(spec) else { return .ignored }
            ranges.append(range)
        }
        return ranges.count == 1 ? .single(ranges[0]) : .multiple
    }

    static func parseSpec(_ spec: Substring) -> MediaByteRange? {
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            return number(last).map { .suffix($0) }
        }
        guard let start = number(first) else { return nil }
        if last.isEmpty { return .from(start, through: nil) }
        guard let end = number(last), end >= start else { return nil }
        return .from(start, through: end)
    }

    /// A non-empty run of ASCII digits; values beyond `Int.max` saturate (a huge last position means "to the end").
    static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text) ?? Int.max
    }

    /// The bytes this range selects of an object of `size` bytes, or `nil` when it is unsatisfiable (starts at or
    /// after the end, or asks for the last 0 bytes).
    public func resolve(size: Int) -> ClosedRange<Int>? {
        switch self {
        case .from(let first, let last):
            guard first < size else { return nil }
            return first...min(last ?? (size - 1), size - 1)
        case .suffix(let length):
            guard length > 0, size > 0 else { return nil }
            return max(0, size - length)...(size - 1)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP optional whitespace).
    fileprivate func trimmingWhitespace() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
