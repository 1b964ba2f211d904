import Logging

/// Minimal JSON writing for log lines: strings, and metadata as objects and arrays.
enum JSONText {
    /// `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func quoted(_ value: String) -> String {
        var result = "\""
        result.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Metadata as a JSON object with keys sorted, so lines are stable.
    static func object(_ metadata: Logger.Metadata) -> String {
        let members = metadata.keys.sorted().map { key in quoted(key) + ":" + value(metadata[key]!) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// One metadata value: strings stay strings, arrays and dictionaries nest.
    static func value(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): quoted(string)
        case .stringConvertible(let convertible): quoted(convertible.description)
        case .array(let array): "[" + array.map { Self.value($0) }.joined(separator: ",") + "]"
        case .dictionary(let dictionary): object(dictionary)
        }
    }
}
