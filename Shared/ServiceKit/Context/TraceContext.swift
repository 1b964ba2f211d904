/// W3C Trace Context (`traceparent`) of one request: the trace it belongs to and its own span.
///
/// A valid incoming `traceparent` is continued (same trace id, the caller's span becomes the parent, a
/// fresh span id for this request); an absent or invalid one starts a new trace. ``traceparent`` is the
/// value to send onwards — in the response, on outgoing HTTP calls, in event metadata and Kafka headers.
public struct TraceContext: Sendable, Hashable {
    /// 32 lowercase hex digits, never all zero.
    public let traceId: String
    /// 16 lowercase hex digits identifying this request's span, never all zero.
    public let spanId: String
    /// The caller's span id when the trace was continued; `nil` for a new trace.
    public let parentSpanId: String?
    /// Trace flags; bit 0 is "sampled".
    public let flags: UInt8

    /// Creates a trace context from its parts; callers normally use ``continuing(_:)`` instead.
    public init(traceId: String, spanId: String, parentSpanId: String?, flags: UInt8) {
        self.traceId = traceId
        self.spanId = spanId
        self.parentSpanId = parentSpanId
        self.flags = flags
    }

    /// The `traceparent` header value naming this request's span: `00-<trace-id>-<span-id>-<flags>`.
    public var traceparent: String {
        "00-\(traceId)-\(spanId)-\(Self.hex(UInt64(flags), digits: 2))"
    }

    /// Whether the caller asked for this trace to be recorded.
    public var isSampled: Bool { flags & 0x01 == 0x01 }

    /// A child span for `header` if it is a valid `traceparent`, otherwise a new sampled trace.
    public static func continuing(_ header: String?) -> TraceContext {
        guard let header, let parent = parse(header) else { return newTrace() }
        return TraceContext(traceId: parent.traceId, spanId: randomSpanId(), parentSpanId: parent.spanId, flags: parent.flags)
    }

    /// A new trace with a random trace id and span id, flagged sampled (every request is logged).
    public static func newTrace() -> TraceContext {
        TraceContext(traceId: randomTraceId(), spanId: randomSpanId(), parentSpanId: nil, flags: 0x01)
    }

    /// A new span in the same trace whose parent is this span, e.g. for an outgoing call.
    public func child() -> TraceContext {
        TraceContext(traceId: traceId, spanId: Self.randomSpanId(), parentSpanId: spanId, flags: flags)
    }

    /// Parses a `traceparent` header per W3C Trace Context level 1.
    ///
    /// Version `00` must be exactly 55 characters; later versions may append `-…` fields, which are ignored;
    /// version `ff`, uppercase hex and all-zero ids are invalid.
    /// - Returns: The header's trace id, span id (the caller's) and flags, or `nil` when invalid.
    public static func parse(_ header: String) -> TraceContext? {
        let text = Array(header.trimmingWhitespace().utf8)
        guard text.count >= 55, text[2] == dash, text[35] == dash, text[52] == dash else { return nil }
        let version = String(decoding: text[0..<2], as: UTF8.self)
        guard isLowerHex(text[0..<2]), version != "ff" else { return nil }
        guard version == "00" ? text.count == 55 : (text.count == 55 || text[55] == dash) else { return nil }
        let traceId = text[3..<35], spanId = text[36..<52], flags = text[53..<55]
        guard isLowerHex(traceId), isLowerHex(spanId), isLowerHex(flags),
            traceId.contains(where: { $0 != zero }), spanId.contains(where: { $0 != zero }),
            let flagBits = UInt8(String(decoding: flags, as: UTF8.self), radix: 16)
        else { return nil }
        return TraceContext(
            traceId: String(decoding: traceId, as: UTF8.self),
            spanId: String(decoding: spanId, as: UTF8.self),
            parentSpanId: nil,
            flags: flagBits
        )
    }

    private static let dash = UInt8(ascii: "-")
    private static let zero = UInt8(ascii: "0")

    private static func isLowerHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    static func randomTraceId() -> String {
        var high: UInt64 = 0, low: UInt64 = 0
        var generator = IdentifierGenerator()
        while high == 0 && low == 0 {
            high = generator.next()
            low = generator.next()
        }
        return hex(high, digits: 16) + hex(low, digits: 16)
    }

    static func randomSpanId() -> String {
        var generator = IdentifierGenerator()
        return hex(UInt64.random(in: 1 ... .max, using: &generator), digits: 16)
    }

    /// `value` as `digits` lower-case hex digits (zero-padded; `digits` ≥ the digits `value` needs), written in place:
    /// every request makes three or four of these.
    static func hex(_ value: UInt64, digits: Int) -> String {
        let needed = max(1, (64 - value.leadingZeroBitCount + 3) / 4)
        let count = max(digits, needed)
        return String(unsafeUninitializedCapacity: count) { buffer in
            var rest = value
            for index in stride(from: count - 1, through: 0, by: -1) {
                let digit = UInt8(truncatingIfNeeded: rest & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                rest >>= 4
            }
            return count
        }
    }
}
