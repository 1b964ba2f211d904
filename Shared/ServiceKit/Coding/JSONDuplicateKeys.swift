#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds an object member name that occurs twice in one JSON object (RFC 7493, I-JSON: "Objects in I-JSON messages
/// MUST NOT have members with duplicate names").
///
/// Foundation's decoder keeps one of the values silently, so `{"role":"guide","role":"admin"}` reads differently in
/// different parsers — a classic way past a validator. Names are compared as Unicode code points after their escapes
/// are resolved (`"a"` and `"\u0061"` are the same name), as RFC 8259 says; canonically equivalent but different code
/// points are different names.
public enum JSONDuplicateKeys {
    /// The JSON Pointer (RFC 6901) of the first duplicated member in `data`, or `nil` when every object's names are
    /// unique. `data` should be well-formed JSON (run after a successful decode); for malformed input the answer is
    /// only best effort.
    public static func firstDuplicate(in data: some Collection<UInt8>) -> String? {
        let bytes = Array(data)
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    private struct Frame {
        var isObject: Bool
        var names: Set<[UInt8]> = []
        var expectingName: Bool
        /// The pointer segment of this container inside its parent.
        var segment: String
        var index = 0
        var lastName: [UInt8] = []
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var stack: [Frame] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func run() -> String? {
            var pendingSegment = ""
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    stack.append(Frame(isObject: byte == UInt8(ascii: "{"), expectingName: byte == UInt8(ascii: "{"), segment: pendingSegment))
                    position += 1
                    pendingSegment = childSegment()
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    stack.removeLast()
                    position += 1
                case UInt8(ascii: ","):
                    if !stack.isEmpty {
                        if stack[stack.count - 1].isObject { stack[stack.count - 1].expectingName = true } else { stack[stack.count - 1].index += 1 }
                    }
                    position += 1
                    pendingSegment = childSegment()
                case UInt8(ascii: "\""):
                    let raw = readString()
                    if let top = stack.last, top.isObject, top.expectingName {
                        let name = Self.unescaped(raw)
                        if stack[stack.count - 1].names.contains(name) {
                            return pointer(appending: String(decoding: name, as: UTF8.self))
                        }
                        stack[stack.count - 1].names.insert(name)
                        stack[stack.count - 1].expectingName = false
                        stack[stack.count - 1].lastName = name
                        pendingSegment = String(decoding: name, as: UTF8.self)
                    }
                default:
                    position += 1
                }
            }
            return nil
        }

        /// The pointer segment of the value that follows (an array element's index; a member's name is set when read).
        func childSegment() -> String {
            guard let top = stack.last, !top.isObject else { return "" }
            return String(top.index)
        }

        /// Reads a string starting at its opening quote; returns its raw bytes (escapes unresolved).
        mutating func readString() -> ArraySlice<UInt8> {
            position += 1
            let start = position
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""):
                    let raw = bytes[start..<position]
                    position += 1
                    return raw
                default: position += 1
                }
            }
            return bytes[start..<min(position, bytes.count)]
        }

        func pointer(appending name: String) -> String {
            var segments = stack.dropFirst().map(\.segment)
            segments.append(name)
            return segments.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
        }

        /// A string's bytes with escapes resolved, as UTF-8 (a lone surrogate reads as U+FFFD).
        static func unescaped(_ raw: ArraySlice<UInt8>) -> [UInt8] {
            guard raw.contains(UInt8(ascii: "\\")) else { return Array(raw) }
            return Array((JSONStringEscapes.unescape(raw, loneSurrogate: "\u{FFFD}") ?? "").utf8)
        }
    }
}
